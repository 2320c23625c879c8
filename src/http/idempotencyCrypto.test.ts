import { hkdfSync, randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { keyFor, openResponseBody, sealResponseBody } from './idempotencyCrypto.js';

describe('stored answers sealed per caller', () => {
  it('derives the key RFC 5869 HKDF derives, so answers sealed before still open', () => {
    for (const [n, key] of ['k', 'ключ-1', `x${'y'.repeat(254)}`].entries()) {
      const identity = { userId: `usr_${n}`, livemode: n % 2 === 0, key, credential: `key_${n}` };
      const secret = randomBytes(24).toString('base64');
      const salt = `${identity.userId}:${identity.livemode ? 'live' : 'test'}`;
      expect(keyFor(secret, identity)).toEqual(Buffer.from(hkdfSync('sha256', secret, salt, `idempotency:${key}`, 32)));
    }
  });

  it('opens an answer only for the same user, mode, key and credential', () => {
    const identity = { userId: 'usr_1', livemode: false, key: 'k-1', credential: 'key_1' };
    const sealed = sealResponseBody('secret', identity, Buffer.from('{"n":1}'));
    expect(openResponseBody('secret', identity, sealed).toString()).toBe('{"n":1}');
    for (const other of [{ userId: 'usr_2' }, { livemode: true }, { key: 'k-2' }, { credential: 'key_2' }]) {
      expect(() => openResponseBody('secret', { ...identity, ...other }, sealed)).toThrow();
    }
    expect(() => openResponseBody('another secret', identity, sealed)).toThrow();
  });
});
