/**
 * Prints the path of a lego with every DNS provider (finding or building the pinned one). Progress
 * goes to stderr, so `$(npm run -s lego)` works.
 */
import { resolveLego } from './lib/lego.js';

console.log(await resolveLego((line) => console.error(line)));
