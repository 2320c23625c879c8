import { createHash } from 'node:crypto';
import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { REPO_ROOT } from './processes.js';

async function filesUnder(relative: string): Promise<string[]> {
  const full = path.join(REPO_ROOT, relative);
  const entries = await readdir(full, { withFileTypes: true }).catch(() => undefined);
  if (!entries) return [relative];
  const nested = await Promise.all(entries.filter((e) => e.name !== 'node_modules').map((e) => filesUnder(path.join(relative, e.name))));
  return nested.flat().sort();
}

/** A hash of every file under these paths (relative to the repository): the same sources give the same build. */
export async function sourceHash(inputs: string[]): Promise<string> {
  const hash = createHash('sha256');
  for (const file of (await Promise.all(inputs.map(filesUnder))).flat()) {
    hash.update(file);
    hash.update(await readFile(path.join(REPO_ROOT, file)).catch(() => Buffer.alloc(0)));
  }
  return hash.digest('hex').slice(0, 16);
}
