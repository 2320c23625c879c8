import type { Db } from '../db/pool.js';
import { bestPlanOfUser } from '../auth/organizations.js';
import type { Principal } from '../auth/principal.js';
import { RateLimitedError } from '../errors.js';
import { registrarBudgetFor } from './groups.js';
import type { RateLimiter } from './limiter.js';

/**
 * Live availability spends the registrar's capacity, so it is counted by name, not by request: a
 * bulk call of N names costs N from the user's `registrar` budget (all keys and sessions together,
 * scaled by the best plan among the user's organisations). Test mode never reaches the registrar.
 */
export async function chargeRegistrarBudget(props: { db: Db; rateLimiter: RateLimiter; principal: Principal; names: number; scale: number }): Promise<void> {
  const { principal } = props;
  if (!principal.livemode) return;
  const limits = registrarBudgetFor(await bestPlanOfUser(props.db, principal.user.id), props.scale);
  const decision = await props.rateLimiter.consumePool({ pool: 'registrar', subject: `user:${principal.user.id}`, limits, cost: props.names });
  if (!decision.allowed) {
    throw new RateLimitedError({
      group: `live availability (counted per name, all of your keys and sessions together; this call asked for ${props.names})`,
      perMinute: limits.perMinute,
      perSecond: limits.perSecond,
      retryAfterSeconds: decision.retryAfterSeconds ?? 1,
    });
  }
}
