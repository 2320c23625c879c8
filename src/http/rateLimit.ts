import type { RouterMiddleware } from '@koa/router';
import type { Db } from '../db/pool.js';
import type { Config } from '../config.js';
import { bestPlanOfUser, planOfMemberOrg, type Plan } from '../auth/organizations.js';
import { requestPrincipal } from '../auth/requestPrincipal.js';
import { RateLimitedError } from '../errors.js';
import { limitsFor, userCeilingFor, USER_CEILING_FACTOR, type RateLimitGroup } from '../rateLimit/groups.js';
import { setRateLimitHeaders } from '../rateLimit/addressLimits.js';
import type { RateLimiter } from '../rateLimit/limiter.js';
import type { AppState } from './context.js';
import { recordRateLimitDecision } from '../metrics/record.js';

const PLAN_CACHE_MS = 60_000;

export type PlanResolver = (userId: string, orgId: string | undefined) => Promise<Plan>;

/**
 * Which plan scales a request's limits: the organisation's on its own paths when the caller is a
 * member of it, else the best plan among the caller's organisations. A stranger to the path's
 * organisation gets their own plan, so `X-RateLimit-Limit` cannot tell whether it exists or what it
 * pays. Cached briefly: a plan or membership change may take a minute to apply.
 */
export function planResolver(db: Db): PlanResolver {
  const cache = new Map<string, { plan: Plan; expiresAt: number }>();
  return async (userId, orgId) => {
    const cacheKey = `${userId}|${orgId ?? ''}`;
    const hit = cache.get(cacheKey);
    if (hit && hit.expiresAt > Date.now()) return hit.plan;
    const plan = (orgId ? await planOfMemberOrg(db, orgId, userId) : undefined) ?? (await bestPlanOfUser(db, userId));
    if (cache.size > 10_000) cache.clear();
    cache.set(cacheKey, { plan, expiresAt: Date.now() + PLAN_CACHE_MS });
    return plan;
  };
}

/**
 * Counts the request against the caller's pool for the route's group (per API key, or per browser
 * session; never per IP) and sets the X-RateLimit-* headers, which stay on error responses too.
 * A second pool per user, USER_CEILING_FACTOR times as large, holds all of one user's keys and
 * sessions together, so making more keys does not make more capacity. It is counted only when the
 * key's own pool allowed the request. Both are one Redis round trip. The client address plays no
 * part: a verified credential is counted on its own pools only, whoever else shares its address.
 * Both pools are per plan as well, so a key acting in organisations of two plans has a window (and a
 * lease) for each, never spending one plan's on the other's paths.
 */
export function rateLimitMiddleware(deps: { rateLimiter: RateLimiter; db: Db; config: Pick<Config, 'rateLimitScale'> }): (group: RateLimitGroup) => RouterMiddleware<AppState> {
  const planFor = planResolver(deps.db);
  const scale = deps.config.rateLimitScale;
  return (group) => async (ctx, next) => {
    const principal = requestPrincipal(ctx.state);
    const plan = await planFor(principal.user.id, ctx.params.org_oid);
    const limits = limitsFor(group, plan, scale);
    const ceiling = userCeilingFor(group, plan, scale);
    // Pools are kept per plan: what a key spends (and leases) on an enterprise organisation's paths is
    // never what admits its requests on a pro one's, each admitted at the limits of the organisation it acts on.
    const pool = `${group}:${plan}`;
    const [own, user] = await deps.rateLimiter.consumeChain([
      { pool, subject: principal.rateLimitSubject, limits },
      { pool, subject: `user:${principal.user.id}`, limits: ceiling },
    ]);
    setRateLimitHeaders(ctx, own!);
    recordRateLimitDecision(group, 'key', own!.allowed);
    if (!own!.allowed) {
      throw new RateLimitedError({ group, perMinute: limits.perMinute, perSecond: limits.perSecond, retryAfterSeconds: own!.retryAfterSeconds ?? 1 });
    }
    recordRateLimitDecision(group, 'user', user!.allowed);
    if (!user!.allowed) {
      ctx.set('X-RateLimit-Remaining', '0');
      throw new RateLimitedError({
        group: `${group} (all of your keys and sessions together, ${USER_CEILING_FACTOR}x one key)`,
        perMinute: ceiling.perMinute,
        perSecond: ceiling.perSecond,
        retryAfterSeconds: user!.retryAfterSeconds ?? 1,
      });
    }
    await next();
  };
}
