/**
 * Regenerates client/src/schema.d.ts, client/src/operations.ts and client/src/errorCodes.ts (from
 * src/http/errorCodes.ts, whichever document is read).
 *   npm run client:generate                      from the route table (no server needed)
 *   npm run client:generate -- --from <url>      from a running api's /api/v1/openapi.json
 */
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { buildServedDocument } from './document.js';
import { renderGeneratedFiles } from './render.js';

export const generatedDir = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../src');

const { values } = parseArgs({ options: { from: { type: 'string' } } });
let document: object;
if (values.from) {
  const res = await fetch(values.from);
  if (!res.ok) throw new Error(`GET ${values.from} answered ${res.status}`);
  document = (await res.json()) as object;
} else {
  document = buildServedDocument();
}
const files = await renderGeneratedFiles(document);
for (const [name, text] of Object.entries(files)) {
  await writeFile(path.join(generatedDir, name), text);
  console.log(`wrote client/src/${name}`);
}
