import { randomBytes } from 'node:crypto';
import type { Config } from '../../config.js';
import { readOrCreateDataDirSecret } from '../../dataDir.js';

/**
 * The HMAC secret for stored API-key hashes: `KEY_HASH_SECRET` when set (required in production),
 * otherwise one random secret per development data directory, kept so keys survive restarts.
 */
export async function resolveKeyHashSecret(config: Pick<Config, 'keyHashSecret' | 'dataDir'>): Promise<string> {
  if (config.keyHashSecret) return config.keyHashSecret;
  return readOrCreateDataDirSecret(config.dataDir, 'key-hash-secret', () => randomBytes(32).toString('hex'));
}
