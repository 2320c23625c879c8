/**
 * Prints the path of a Temporal CLI to use (finding or building the pinned one), or nothing when
 * there is neither a CLI nor Go here. Progress goes to stderr, so `$(npm run -s temporal-cli)` works.
 */
import { resolveTemporalCli } from './lib/temporalCli.js';

const cli = await resolveTemporalCli((line) => console.error(line));
if (cli) console.log(cli);
