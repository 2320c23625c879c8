import { createCipheriv, createDecipheriv, hkdfSync, randomBytes } from 'node:crypto';
import type { IdempotencyIdentity } from './idempotencyKeys.js';

/**
 * Stored answers can carry secrets (a new API key's `key`), so they are encrypted with AES-256-GCM
 * under a key derived from KEY_HASH_SECRET and the (user, mode, Idempotency-Key): only the same
 * caller's same request can ever read them back. The credential that made the request is the
 * associated data, so the body cannot be opened for any other API key or session, even by mistake.
 * Layout: iv (12) | tag (16) | ciphertext.
 */
function keyFor(secret: string, identity: IdempotencyIdentity): Buffer {
  const salt = `${identity.userId}:${identity.livemode ? 'live' : 'test'}`;
  return Buffer.from(hkdfSync('sha256', secret, salt, `idempotency:${identity.key}`, 32));
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
