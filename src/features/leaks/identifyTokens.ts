import { hashApiKey, parseApiKey, type KeyMode } from '../../auth/apiKeyFormat.js';
import type { Db } from '../../db/pool.js';
import { findApiKeysByHashes, type ApiKeyRecord } from '../../auth/apiKeys.js';

export interface IdentifiedToken {
  token: string;
  /** Set when format and checksum hold: the key's mode and the hash it would be stored under (hex). */
  wellFormed: { mode: KeyMode; hash: string } | undefined;
  /** The key it is, when it is one of ours. */
  key: ApiKeyRecord | undefined;
}

export interface IdentifyTokensProps {
  db: Pick<Db, 'query'>;
  keyHashSecret: string;
  tokens: string[];
}

/**
 * Which of `tokens` are our keys. Format and checksum are checked first, without the database:
 * a look-alike (wrong shape or checksum) is never looked up. The rest are found in one query.
 */
export async function identifyTokens(props: IdentifyTokensProps): Promise<IdentifiedToken[]> {
  const checked = props.tokens.map((token) => {
    const parsed = parseApiKey(token);
    return { token, wellFormed: parsed ? { mode: parsed.mode, hash: hashApiKey(props.keyHashSecret, token).toString('hex') } : undefined };
  });
  const hashes = [...new Set(checked.flatMap((t) => (t.wellFormed ? [t.wellFormed.hash] : [])))];
  const keys = await findApiKeysByHashes(props.db, hashes.map((hash) => Buffer.from(hash, 'hex')));
  return checked.map((t) => ({ ...t, key: t.wellFormed ? keys.get(t.wellFormed.hash) : undefined }));
}
