import { randomBytes } from 'node:crypto';
import { link, mkdir, readFile, unlink, writeFile } from 'node:fs/promises';
import path from 'node:path';

/**
 * A development file kept in the data directory (a secret, a signing key): read it, or create it once,
 * readable by the owner only. Processes that start together (api and worker sharing a volume) all end
 * up with the same content: each writes a private temporary file and hard-links it into place, which
 * fails when a file is already there, so exactly one wins and nobody ever reads a half-written file.
 */
export async function readOrCreateDataDirFile(dataDir: string, name: string, create: () => string | Promise<string>): Promise<string> {
  const file = path.join(dataDir, name);
  try {
    return await readFile(file, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
  }
  await mkdir(dataDir, { recursive: true });
  const temp = `${file}.${process.pid}.${randomBytes(6).toString('hex')}.tmp`;
  await writeFile(temp, await create(), { mode: 0o600 });
  try {
    await link(temp, file);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
  } finally {
    await unlink(temp);
  }
  return readFile(file, 'utf8');
}

/** A development secret (one line of text) kept in the data directory. */
export async function readOrCreateDataDirSecret(dataDir: string, name: string, create: () => string): Promise<string> {
  return (await readOrCreateDataDirFile(dataDir, name, create)).trim();
}
