import { randomBytes } from 'node:crypto';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { Config } from '../../config.js';

/**
 * The HMAC secret for stored API-key hashes: `KEY_HASH_SECRET` when set (required in production),
 * otherwise one random secret per development data directory, kept so keys survive restarts.
 */
export async function resolveKeyHashSecret(config: Pick<Config, 'keyHashSecret' | 'dataDir'>): Promise<string> {
  if (config.keyHashSecret) return config.keyHashSecret;
  const file = path.join(config.dataDir, 'key-hash-secret');
  try {
    return (await readFile(file, 'utf8')).trim();
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
  }
  await mkdir(config.dataDir, { recursive: true });
  const secret = randomBytes(32).toString('hex');
  try {
    await writeFile(file, secret, { mode: 0o600, flag: 'wx' });
    return secret;
  } catch (err) {
    // Another process created it first: use theirs.
    if ((err as NodeJS.ErrnoException).code === 'EEXIST') return (await readFile(file, 'utf8')).trim();
    throw err;
  }
}
