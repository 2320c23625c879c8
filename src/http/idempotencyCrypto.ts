import { createCipheriv, createDecipheriv, createHmac, randomBytes } from 'node:crypto';
import type { IdempotencyIdentity } from './idempotencyKeys.js';

/** HKDF's block counter for the first (and, for 32 bytes of SHA-256, only) block. */
const FIRST_BLOCK = Buffer.from([1]);

/**
 * Stored answers can carry secrets (a new API key's `key`), so they are encrypted with AES-256-GCM
 * under a key derived from KEY_HASH_SECRET and the (user, mode, Idempotency-Key): only the same
 * caller's same request can ever read them back. The credential that made the request is the
 * associated data, so the body cannot be opened for any other API key or session, even by mistake.
 * Layout: iv (12) | tag (16) | ciphertext.
 *
 * The key is HKDF-SHA-256 (RFC 5869), 32 bytes: the same bytes as `hkdfSync('sha256', secret, salt,
 * info, 32)`, written as its two HMACs (extract, then the one block expanded) because hkdfSync's
 * set-up cost more than twice as much as both on the answer's path (docs/bench.md).
 */
export function keyFor(secret: string, identity: IdempotencyIdentity): Buffer {
  const salt = `${identity.userId}:${identity.livemode ? 'live' : 'test'}`;
  const pseudoRandomKey = createHmac('sha256', salt).update(secret).digest();
  return createHmac('sha256', pseudoRandomKey).update(`idempotency:${identity.key}`).update(FIRST_BLOCK).digest();
}

export function sealResponseBody(secret: string, identity: IdempotencyIdentity, plaintext: Buffer): Buffer {
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', keyFor(secret, identity), iv);
  cipher.setAAD(Buffer.from(identity.credential, 'utf8'));
  const ciphertext = Buffer.concat([cipher.update(plaintext), cipher.final()]);
  return Buffer.concat([iv, cipher.getAuthTag(), ciphertext]);
}

export function openResponseBody(secret: string, identity: IdempotencyIdentity, sealed: Buffer): Buffer {
  const decipher = createDecipheriv('aes-256-gcm', keyFor(secret, identity), sealed.subarray(0, 12));
  decipher.setAuthTag(sealed.subarray(12, 28));
  decipher.setAAD(Buffer.from(identity.credential, 'utf8'));
  return Buffer.concat([decipher.update(sealed.subarray(28)), decipher.final()]);
}
