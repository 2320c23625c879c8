import type { ParameterizedContext } from 'koa';
import type { Config } from '../config.js';
import { RateLimitedError } from '../errors.js';
import { clientAddress } from '../http/clientAddress.js';
import { ADDRESS_LIMITS, type AddressPool } from './groups.js';
import type { Decision, RateLimiter } from './limiter.js';
import { recordRateLimitDecision } from '../metrics/record.js';

export interface AddressLimitDeps {
  rateLimiter: RateLimiter;
  config: Pick<Config, 'trustProxy'>;
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

/**
 * Counts one request against the client address's pool; throws 429 past it (headers set either way).
 * `auth_failure` counts only requests whose credential failed (src/auth/authenticate.ts): a
 * credential that verifies never asks, so many callers behind one address are refused only for
 * their own failures.
 */
export async function consumeAddressPool(
  deps: AddressLimitDeps,
  ctx: Pick<ParameterizedContext, 'set' | 'socket' | 'get'>,
  pool: AddressPool,
): Promise<void> {
  const { rateLimiter } = deps;
  const decision = await rateLimiter.consumePool({ pool, subject: `ip:${clientAddress(ctx, deps.config.trustProxy)}`, limits: ADDRESS_LIMITS[pool] });
  setRateLimitHeaders(ctx, decision);
  recordRateLimitDecision(pool, 'address', decision.allowed);
  if (!decision.allowed) throw addressRateLimited(pool, decision.retryAfterSeconds ?? 1);
}
