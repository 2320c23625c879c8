/**
 * Prints the path of OpenTofu (finding or building the pinned one). Progress goes to stderr, so
 * `$(npm run -s opentofu)` works (.ci/run).
 */
import { resolveOpenTofu } from './lib/openTofu.js';

console.log(await resolveOpenTofu((line) => console.error(line)));
