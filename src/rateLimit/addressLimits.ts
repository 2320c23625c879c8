import type { ParameterizedContext } from 'koa';
import type { Config } from '../config.js';
import { RateLimitedError } from '../errors.js';
import { clientAddress } from '../http/clientAddress.js';
import { ADDRESS_LIMITS, type AddressPool } from './groups.js';
import type { Decision, RateLimiter } from './limiter.js';
import { recordRateLimitDecision } from '../metrics/record.js';

export interface AddressLimitDeps {
  rateLimiter: RateLimiter;
  config: Pick<Config, 'addressRateLimits' | 'trustProxy'>;
}

const DESCRIPTIONS: Record<AddressPool, string> = {
  auth_failure: 'failed authentication (per client address)',
  public: 'unauthenticated (per client address)',
};

export function setRateLimitHeaders(ctx: Pick<ParameterizedContext, 'set'>, decision: Decision): void {
  ctx.set({
    'X-RateLimit-Limit': String(decision.limit),
    'X-RateLimit-Remaining': String(decision.remaining),
    'X-RateLimit-Reset': String(decision.resetAt),
  });
}

export function addressRateLimited(pool: AddressPool, retryAfterSeconds: number): RateLimitedError {
  const limits = ADDRESS_LIMITS[pool];
  return new RateLimitedError({ group: DESCRIPTIONS[pool], perMinute: limits.perMinute, perSecond: limits.perSecond, retryAfterSeconds });
}

/** Counts one request against the client address's pool; throws 429 past it (headers set either way). */
export async function consumeAddressPool(
  deps: AddressLimitDeps,
  ctx: Pick<ParameterizedContext, 'set' | 'socket' | 'get'>,
  pool: AddressPool,
): Promise<void> {
  if (!deps.config.addressRateLimits) return;
  const { rateLimiter } = deps;
  const decision = await rateLimiter.consumePool({ pool, subject: `ip:${clientAddress(ctx, deps.config.trustProxy)}`, limits: ADDRESS_LIMITS[pool] });
  setRateLimitHeaders(ctx, decision);
  recordRateLimitDecision(pool, 'address', decision.allowed);
  if (!decision.allowed) throw addressRateLimited(pool, decision.retryAfterSeconds ?? 1);
}

/**
 * Refuses an address that is inside a failed-authentication block before its token costs a database
 * query or a signature check (only the HMAC that finds it in memory is spent). Its legitimate requests
 * wait too: the address is all we know at that point.
 */
export async function refuseBlockedAddress(deps: AddressLimitDeps, ctx: Pick<ParameterizedContext, 'set' | 'socket' | 'get'>): Promise<void> {
  if (!deps.config.addressRateLimits) return;
  const { pool, subject } = addressBlockOf(deps, ctx);
  refuseWhileBlocked(ctx, await deps.rateLimiter.blocked(pool, subject));
}

/** The pool and subject whose block refuses an address after too many failed authentications. */
export function addressBlockOf(deps: Pick<AddressLimitDeps, 'config'>, ctx: Pick<ParameterizedContext, 'socket' | 'get'>): { pool: AddressPool; subject: string } {
  return { pool: 'auth_failure', subject: `ip:${clientAddress(ctx, deps.config.trustProxy)}` };
}

/** 429 with the failed-authentication pool's headers while `retryAfter` (s) is above 0. */
export function refuseWhileBlocked(ctx: Pick<ParameterizedContext, 'set'>, retryAfter: number): void {
  recordRateLimitDecision('auth_failure', 'address', retryAfter <= 0);
  if (retryAfter <= 0) return;
  const limits = ADDRESS_LIMITS.auth_failure;
  ctx.set({
    'X-RateLimit-Limit': String(limits.perMinute),
    'X-RateLimit-Remaining': '0',
    'X-RateLimit-Reset': String((Math.floor(Date.now() / 60_000) + 1) * 60),
  });
  throw addressRateLimited('auth_failure', retryAfter);
}
