import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import { readOrCreateDataDirSecret } from '../dataDir.js';

const KEY_BYTES = 32;
const IV_BYTES = 12;
const TAG_BYTES = 16;
const KEY_ID = /^[A-Za-z0-9._-]{1,64}$/;

export interface PayloadKey {
  id: string;
  key: Buffer;
}

/**
 * Parses `id:base64key[,id:base64key…]` (the format of `PAYLOAD_ENCRYPTION_KEYS`). Returns the
 * problems instead of throwing, so configuration can report them next to the variable's name.
 */
export function parsePayloadKeys(value: string): { keys: PayloadKey[] } | { problems: string[] } {
  const problems: string[] = [];
  const keys: PayloadKey[] = [];
  for (const [index, entry] of value.split(',').map((part) => part.trim()).entries()) {
    const separator = entry.indexOf(':');
    const id = separator > 0 ? entry.slice(0, separator) : '';
    const encoded = separator > 0 ? entry.slice(separator + 1) : '';
    const key = Buffer.from(encoded, 'base64');
    if (!KEY_ID.test(id)) problems.push(`entry ${index + 1} must be id:base64key, the id of letters, digits, ".", "_" or "-"`);
    else if (key.length !== KEY_BYTES || key.toString('base64') !== encoded) {
      problems.push(`key "${id}" must be ${KEY_BYTES} bytes in base64 (openssl rand -base64 32)`);
    } else if (keys.some((k) => k.id === id)) problems.push(`key id "${id}" appears twice`);
    else keys.push({ id, key });
  }
  return problems.length > 0 ? { problems } : { keys };
}

/**
 * AES-256-GCM with a set of keys: seals with the first (active) key, opens with whichever key a
 * ciphertext names, so a new key can be put first while the old ones still read old data.
 * `purpose` is authenticated with the key id: a ciphertext made for one use (a Temporal payload)
 * cannot be passed off as another (a stored workflow input).
 */
export class PayloadKeyring {
  private readonly keys: Map<string, Buffer>;
  readonly activeKeyId: string;

  constructor(keys: PayloadKey[]) {
    if (keys.length === 0) throw new Error('a payload keyring needs at least one key');
    this.keys = new Map(keys.map((k) => [k.id, k.key]));
    this.activeKeyId = keys[0]!.id;
  }

  /** `iv ‖ ciphertext ‖ tag`, under the active key. */
  seal(plaintext: Uint8Array, purpose: string): { keyId: string; data: Buffer } {
    const keyId = this.activeKeyId;
    const iv = randomBytes(IV_BYTES);
    const cipher = createCipheriv('aes-256-gcm', this.keys.get(keyId)!, iv);
    cipher.setAAD(Buffer.from(`${purpose}|${keyId}`));
    const data = Buffer.concat([iv, cipher.update(plaintext), cipher.final(), cipher.getAuthTag()]);
    return { keyId, data };
  }

  /** Throws when the key is unknown or the data was altered. */
  open(keyId: string, data: Uint8Array, purpose: string): Buffer {
    const key = this.keys.get(keyId);
    if (!key) throw new Error(`no payload encryption key "${keyId}" is configured`);
    if (data.length < IV_BYTES + TAG_BYTES) throw new Error('encrypted payload is truncated');
    const decipher = createDecipheriv('aes-256-gcm', key, data.subarray(0, IV_BYTES));
    decipher.setAAD(Buffer.from(`${purpose}|${keyId}`));
    decipher.setAuthTag(data.subarray(data.length - TAG_BYTES));
    return Buffer.concat([decipher.update(data.subarray(IV_BYTES, data.length - TAG_BYTES)), decipher.final()]);
  }
}

/**
 * The keys from `PAYLOAD_ENCRYPTION_KEYS` (required in production), otherwise one random key per
 * development data directory, kept so histories written before a restart still decode.
 */
// Takes the two config fields it reads (src/config.ts) rather than the Config type: config.ts parses
// the keys with this module, so importing its type here would make a circle.
export async function resolvePayloadKeyring(config: { payloadEncryptionKeys: PayloadKey[] | undefined; dataDir: string }): Promise<PayloadKeyring> {
  if (config.payloadEncryptionKeys) return new PayloadKeyring(config.payloadEncryptionKeys);
  const line = await readOrCreateDataDirSecret(
    config.dataDir,
    'payload-encryption-key',
    () => `local-${randomBytes(4).toString('hex')}:${randomBytes(KEY_BYTES).toString('base64')}`,
  );
  const parsed = parsePayloadKeys(line);
  if ('problems' in parsed) throw new Error(`${config.dataDir}/payload-encryption-key: ${parsed.problems.join('; ')}`);
  return new PayloadKeyring(parsed.keys);
}
