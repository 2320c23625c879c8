import { createHash } from 'node:crypto';
import type { Db } from '../db/pool.js';
import { findUserBySubject, upsertUserBySubject } from './users.js';
import type { Principal } from './principal.js';
import { SCOPES, type Scope } from './scopes.js';
import type { SessionVerifier } from './sessionVerifier.js';

const ALL_SCOPES: ReadonlySet<Scope> = new Set(SCOPES);

/**
 * How long a verified session token and the user it names are reused in one process. The user row is
 * read again after this, so a change to it shows within this bound (well inside the 2 s docs/operations.md
 * promises for identity changes); the signature is checked again too.
 */
export const SESSION_CACHE_TTL_MS = 1_500;
const MAX_ENTRIES = 10_000;

/** A session token with the hash it is kept under, computed once per request. */
export interface SessionToken {
  token: string;
  key: string;
}

export const sessionToken = (token: string): SessionToken => ({ token, key: createHash('sha256').update(token).digest('base64url') });

/** What verifying a session token yields: the caller, and when the token expires (ms since epoch). */
export interface LoadedSession {
  principal: Principal;
  expiresAtMs: number;
}

interface Entry {
  principal: Promise<Principal>;
  expiresAt: number;
}

/**
 * Session principals by a hash of their token (the token itself is never kept), each for at most
 * SESSION_CACHE_TTL_MS from when its verification began and never past the token's `exp`. Concurrent
 * requests with one token share one verification; a failed one is not remembered.
 */
export class SessionPrincipals {
  private readonly entries = new Map<string, Entry>();

  constructor(
    private readonly load: (token: string) => Promise<LoadedSession>,
    private readonly now: () => number = Date.now,
  ) {}

  get(tokenOrSession: string | SessionToken): Promise<Principal> {
    const { token, key } = typeof tokenOrSession === 'string' ? sessionToken(tokenOrSession) : tokenOrSession;
    const at = this.now();
    const hit = this.entries.get(key);
    if (hit && hit.expiresAt > at) return hit.principal;
    if (hit) this.entries.delete(key);
    const entry: Entry = { principal: this.verify(key, token), expiresAt: at + SESSION_CACHE_TTL_MS };
    // Oldest first out: a Map iterates in insertion order.
    if (this.entries.size >= MAX_ENTRIES) this.entries.delete(this.entries.keys().next().value!);
    this.entries.set(key, entry);
    return entry.principal;
  }

  private async verify(key: string, token: string): Promise<Principal> {
    try {
      const { principal, expiresAtMs } = await this.load(token);
      const entry = this.entries.get(key);
      if (entry) entry.expiresAt = Math.min(entry.expiresAt, expiresAtMs);
      return principal;
    } catch (err) {
      this.entries.delete(key);
      throw err;
    }
  }
}

/** Verifies a session token and finds (or, for a new `sub` or changed claims, writes) its user. */
export function sessionLoader(db: Db, verifySession: SessionVerifier): (token: string) => Promise<LoadedSession> {
  return async (token) => {
    const claims = await verifySession(token);
    // A read on the hot path; a write only for a new user or changed claims.
    const known = await findUserBySubject(db, claims.sub);
    const user =
      known && known.email === claims.email && known.name === claims.name && known.emailVerified === claims.emailVerified
        ? known
        : await upsertUserBySubject(db, { subject: claims.sub, email: claims.email, name: claims.name, emailVerified: claims.emailVerified });
    const principal: Principal = {
      user,
      type: 'session',
      keyId: undefined,
      mode: 'live',
      livemode: true,
      scopes: ALL_SCOPES,
      rateLimitSubject: `session:${claims.sid ?? claims.sub}`,
      credential: `session:${user.id}:${claims.sid ?? claims.sub}`,
    };
    return { principal, expiresAtMs: claims.expiresAtMs };
  };
}
