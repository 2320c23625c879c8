// `npm run --silent compose-check` prints the path of the compose loader, building it if needed (.ci/run).
import { resolveComposeCheck } from './lib/composeCheck.js';

console.log(await resolveComposeCheck((line) => console.error(line)));
