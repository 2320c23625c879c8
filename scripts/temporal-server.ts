/**
 * Builds (once, into the tool cache) the Temporal server, its SQL schema tool and the Web UI server
 * the production topology runs (scripts/lib/cluster/), and prints the server's path. Progress goes
 * to stderr. CI runs it in a background lane beside the other Go tools.
 */
import { resolveTemporalBinaries } from './lib/cluster/temporalServer.js';

const binaries = await resolveTemporalBinaries((line) => console.error(line));
console.log(binaries.server);
