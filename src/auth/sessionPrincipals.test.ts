import { describe, expect, it } from 'vitest';
import { SESSION_CACHE_TTL_MS, SessionPrincipals, type LoadedSession } from './sessionPrincipals.js';
import type { Principal } from './principal.js';
import { InvalidTokenError } from './errors.js';

function principalNamed(name: string): Principal {
  const user = { id: 'usr_1', subject: 'dev|a', email: 'a@example.com', name, emailVerified: null, createdAt: new Date(0) };
  return { user, type: 'session', keyId: undefined, mode: 'live', livemode: true, scopes: new Set(), rateLimitSubject: 's', credential: 'c' };
}

/** A loader whose answers the test sets, counting its calls; the clock is the test's. */
function setUp(expiresAtMs = Number.MAX_SAFE_INTEGER) {
  let clock = 1_000_000;
  let name = 'first';
  let fail = false;
  let loads = 0;
  const sessions = new SessionPrincipals(async (): Promise<LoadedSession> => {
    loads += 1;
    await Promise.resolve();
    if (fail) throw new InvalidTokenError('bad');
    return { principal: principalNamed(name), expiresAtMs };
  }, () => clock);
  return {
    sessions,
    loads: () => loads,
    advance: (ms: number) => (clock += ms),
    rename: (next: string) => (name = next),
    failNext: (value: boolean) => (fail = value),
  };
}

describe('session principals', () => {
  it('verifies a token once for concurrent requests, and again once the bound has passed', async () => {
    const t = setUp();
    const all = await Promise.all([t.sessions.get('tok'), t.sessions.get('tok'), t.sessions.get('tok')]);
    expect(all.map((p) => p.user.name)).toEqual(['first', 'first', 'first']);
    expect(t.loads()).toBe(1);
    t.rename('second');
    t.advance(SESSION_CACHE_TTL_MS - 1);
    expect((await t.sessions.get('tok')).user.name).toBe('first');
    // A changed user shows within the bound.
    t.advance(1);
    expect((await t.sessions.get('tok')).user.name).toBe('second');
    expect(t.loads()).toBe(2);
  });

  it('never answers from memory past the token\'s exp', async () => {
    const t = setUp(1_000_000 + 500);
    await t.sessions.get('tok');
    t.advance(499);
    await t.sessions.get('tok');
    expect(t.loads()).toBe(1);
    t.advance(1);
    await t.sessions.get('tok');
    expect(t.loads()).toBe(2);
  });

  it('does not remember a failed verification', async () => {
    const t = setUp();
    t.failNext(true);
    await expect(t.sessions.get('tok')).rejects.toBeInstanceOf(InvalidTokenError);
    t.failNext(false);
    expect((await t.sessions.get('tok')).user.name).toBe('first');
    expect(t.loads()).toBe(2);
  });
});
