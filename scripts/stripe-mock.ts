/**
 * Prints the path of stripe-mock (finding or building the pinned one). Progress goes to stderr, so
 * `$(npm run -s stripe-mock)` works.
 */
import { resolveStripeMock } from './lib/stripeMock.js';

console.log(await resolveStripeMock((line) => console.error(line)));
