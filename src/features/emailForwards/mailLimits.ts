import type { Plan } from '../../auth/organizations.js';
import { PLAN_MULTIPLIERS } from '../../rateLimit/groups.js';

/**
 * What a domain's mail forwarding may take on the free plan, scaled by the plan as the rate limits
 * are (docs/api-guide.md, E-mail forwarding): aliases a domain holds, and messages it is sent an
 * hour (each accepted recipient counts one; past it, 451 and the sender retries later).
 */
export const EMAIL_FORWARDS_FREE = 100;
export const FORWARDED_PER_HOUR_FREE = 1_000;

export function emailForwardLimit(plan: Plan): number {
  return EMAIL_FORWARDS_FREE * PLAN_MULTIPLIERS[plan];
}

export function forwardedPerHourLimit(plan: Plan, freePerHour = FORWARDED_PER_HOUR_FREE): number {
  return freePerHour * PLAN_MULTIPLIERS[plan];
}
