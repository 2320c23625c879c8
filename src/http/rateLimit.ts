import type { RouterMiddleware } from '@koa/router';
import type { Db } from '../db/pool.js';
import { bestPlanOfUser, findOrganization, type Plan } from '../db/repositories/organizations.js';
import { requirePrincipal } from '../auth/authorize.js';
import { RateLimitedError } from '../errors.js';
import { limitsFor, type RateLimitGroup } from '../rateLimit/groups.js';
import type { RateLimiter } from '../rateLimit/limiter.js';
import type { AppState } from './context.js';

const PLAN_CACHE_MS = 60_000;

/**
 * Which plan scales a request's limits: the organisation's on its own paths, else the best plan
 * among the caller's organisations. Cached briefly: a plan change may take a minute to apply.
 */
function planResolver(db: Db): (userId: string, orgId: string | undefined) => Promise<Plan> {
  const cache = new Map<string, { plan: Plan; expiresAt: number }>();
  return async (userId, orgId) => {
    const cacheKey = `${userId}|${orgId ?? ''}`;
    const hit = cache.get(cacheKey);
    if (hit && hit.expiresAt > Date.now()) return hit.plan;
    const plan = (orgId ? (await findOrganization(db, orgId))?.plan : undefined) ?? (await bestPlanOfUser(db, userId));
    if (cache.size > 10_000) cache.clear();
    cache.set(cacheKey, { plan, expiresAt: Date.now() + PLAN_CACHE_MS });
    return plan;
  };
}

/**
 * Counts the request against the caller's pool for the route's group (per API key, or per browser
 * session; never per IP) and sets the X-RateLimit-* headers, which stay on error responses too.
 */
export function rateLimitMiddleware(deps: { db: Db; rateLimiter: RateLimiter }): (group: RateLimitGroup) => RouterMiddleware<AppState> {
  const planFor = planResolver(deps.db);
  return (group) => async (ctx, next) => {
    const principal = requirePrincipal(ctx.state);
    const plan = await planFor(principal.user.id, ctx.params.org_oid);
    const decision = await deps.rateLimiter.consume({ subject: principal.rateLimitSubject, group, plan });
    ctx.set({
      'X-RateLimit-Limit': String(decision.limit),
      'X-RateLimit-Remaining': String(decision.remaining),
      'X-RateLimit-Reset': String(decision.resetAt),
    });
    if (!decision.allowed) {
      const limits = limitsFor(group, plan);
      throw new RateLimitedError({
        group,
        perMinute: limits.perMinute,
        perSecond: limits.perSecond,
        retryAfterSeconds: decision.retryAfterSeconds ?? 1,
      });
    }
    await next();
  };
}
