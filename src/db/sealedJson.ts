import type { PayloadKeyring } from '../temporal/payloadKeys.js';

/**
 * A JSON value stored encrypted in a jsonb column: which key sealed it, and the AES-256-GCM
 * ciphertext (see `payloadKeys.ts`). The brand keeps a plain object from being stored by mistake.
 */
export interface SealedJson {
  readonly sealed: 'aes-256-gcm';
  readonly key_id: string;
  readonly data: string;
  readonly __brand?: 'SealedJson';
}

function isSealed(value: unknown): value is SealedJson {
  const candidate = value as Partial<SealedJson> | null;
  return typeof candidate === 'object' && candidate !== null && candidate.sealed === 'aes-256-gcm' && typeof candidate.key_id === 'string';
}

/** `purpose` names the column, so a value sealed for one column cannot be replayed into another. */
export function sealJson(keys: PayloadKeyring, purpose: string, value: unknown): SealedJson {
  const { keyId, data } = keys.seal(Buffer.from(JSON.stringify(value)), purpose);
  return { sealed: 'aes-256-gcm', key_id: keyId, data: data.toString('base64') };
}

/** The value sealed by `sealJson`. Rows written before sealing was introduced are returned as they are. */
export function openJson<T>(keys: PayloadKeyring, purpose: string, stored: unknown): T {
  if (!isSealed(stored)) return stored as T;
  return JSON.parse(keys.open(stored.key_id, Buffer.from(stored.data, 'base64'), purpose).toString('utf8')) as T;
}
