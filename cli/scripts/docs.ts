import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { buildProgram } from '../src/program.js';
import { withReference } from '../src/reference.js';

// `npm run cli:docs`: rewrites the command reference in docs/cli.md from the command definitions.
const file = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../docs/cli.md');
await writeFile(file, withReference(await readFile(file, 'utf8'), buildProgram()));
console.log('wrote the command reference of docs/cli.md');
