import { createHash, randomBytes } from 'node:crypto';
import type { Redis } from 'ioredis';
import type { PayloadKeyring } from '../temporal/payloadKeys.js';
import { openJson, sealJson } from '../db/sealedJson.js';

/** What the identity provider gave us; sealed at rest, never sent to the browser. */
export interface SessionTokens {
  accessToken: string;
  refreshToken: string | undefined;
  /** Epoch ms; undefined when the provider did not say. */
  accessTokenExpiresAt: number | undefined;
}

export interface DashboardUser {
  email: string | null;
  name: string | null;
}

export interface DashboardSession {
  /** Names the session in Redis (a hash of the cookie value: a Redis dump holds no usable cookie). */
  key: string;
  user: DashboardUser;
  csrfToken: string;
  createdAt: number;
  lastSeenAt: number;
  tokens: SessionTokens;
}

export interface SessionLifetimes {
  idleMs: number;
  absoluteMs: number;
}

const SEAL_PURPOSE = 'dashboard-session-tokens';
const keyOf = (cookieValue: string) => `dashboard:session:${createHash('sha256').update(cookieValue).digest('hex')}`;
// HSET on a deleted key would recreate it without an expiry: both write only while it exists.
const TOUCH = "if redis.call('EXISTS', KEYS[1]) == 0 then return 0 end redis.call('HSET', KEYS[1], 'lastSeenAt', ARGV[1]) return redis.call('PEXPIRE', KEYS[1], ARGV[2])";
const SET_TOKENS = "if redis.call('EXISTS', KEYS[1]) == 0 then return 0 end return redis.call('HSET', KEYS[1], 'tokens', ARGV[1])";
const randomToken = () => randomBytes(32).toString('base64url');

/** When a session ends if nobody uses it: 12 h after last use, at most 7 days after sign-in. */
export function sessionEndsAt(session: Pick<DashboardSession, 'createdAt' | 'lastSeenAt'>, lifetimes: SessionLifetimes): number {
  return Math.min(session.lastSeenAt + lifetimes.idleMs, session.createdAt + lifetimes.absoluteMs);
}

/**
 * Dashboard sessions in Redis, one hash each: user, CSRF token, times and sealed tokens. Last use
 * and tokens are separate fields, so marking a request as seen never overwrites tokens that a
 * concurrent request has just refreshed. Redis expires a session when it ends; reads check too.
 */
export class DashboardSessions {
  constructor(private readonly deps: { redis: Redis; payloadKeys: PayloadKeyring; lifetimes: SessionLifetimes }) {}

  /** A new session; returns the cookie value (the only thing the browser gets). */
  async create(props: { user: DashboardUser; tokens: SessionTokens; now?: number }): Promise<{ cookieValue: string; session: DashboardSession }> {
    const cookieValue = randomToken();
    const now = props.now ?? Date.now();
    const session: DashboardSession = { key: keyOf(cookieValue), user: props.user, csrfToken: randomToken(), createdAt: now, lastSeenAt: now, tokens: props.tokens };
    await this.deps.redis
      .multi()
      .hset(session.key, {
        user: JSON.stringify(props.user),
        csrf: session.csrfToken,
        createdAt: String(now),
        lastSeenAt: String(now),
        tokens: this.sealTokens(props.tokens),
      })
      .pexpire(session.key, this.remainingMs(session, now))
      .exec();
    return { cookieValue, session };
  }

  /**
   * The live session the cookie names, marked as used now; undefined when there is none or it has
   * ended (an ended one is deleted).
   */
  async use(cookieValue: string | undefined, now = Date.now()): Promise<DashboardSession | undefined> {
    if (!cookieValue) return undefined;
    const key = keyOf(cookieValue);
    const fields = await this.deps.redis.hgetall(key);
    if (!fields.csrf || !fields.tokens || !fields.createdAt || !fields.lastSeenAt) return undefined;
    const session: DashboardSession = {
      key,
      user: JSON.parse(fields.user ?? '{}') as DashboardUser,
      csrfToken: fields.csrf,
      createdAt: Number(fields.createdAt),
      lastSeenAt: Number(fields.lastSeenAt),
      tokens: openJson<SessionTokens>(this.deps.payloadKeys, SEAL_PURPOSE, JSON.parse(fields.tokens)),
    };
    if (sessionEndsAt(session, this.deps.lifetimes) <= now) {
      await this.end(session.key);
      return undefined;
    }
    session.lastSeenAt = now;
    // A sign-out racing this request must not bring the session back.
    await this.deps.redis.eval(TOUCH, 1, key, String(now), String(this.remainingMs(session, now)));
    return session;
  }

  async replaceTokens(session: DashboardSession, tokens: SessionTokens): Promise<void> {
    session.tokens = tokens;
    await this.deps.redis.eval(SET_TOKENS, 1, session.key, this.sealTokens(tokens));
  }

  /** The tokens as stored now (another request may have refreshed them). */
  async currentTokens(session: DashboardSession): Promise<SessionTokens | undefined> {
    const sealed = await this.deps.redis.hget(session.key, 'tokens');
    return sealed ? openJson<SessionTokens>(this.deps.payloadKeys, SEAL_PURPOSE, JSON.parse(sealed)) : undefined;
  }

  async end(key: string): Promise<void> {
    await this.deps.redis.del(key);
  }

  endsAt(session: DashboardSession): number {
    return sessionEndsAt(session, this.deps.lifetimes);
  }

  private remainingMs(session: Pick<DashboardSession, 'createdAt' | 'lastSeenAt'>, now: number): number {
    return Math.max(1, sessionEndsAt(session, this.deps.lifetimes) - now);
  }

  private sealTokens(tokens: SessionTokens): string {
    return JSON.stringify(sealJson(this.deps.payloadKeys, SEAL_PURPOSE, tokens));
  }
}
