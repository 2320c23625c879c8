import type { ParameterizedContext } from 'koa';
import type { Config } from '../../config.js';
import { RateLimitedError } from '../../errors.js';
import { ACME_DNS_UPDATES, ADDRESS_LIMITS, planScaled, USER_CEILING_FACTOR } from '../../rateLimit/groups.js';
import { setRateLimitHeaders } from '../../rateLimit/addressLimits.js';
import type { PoolInput, RateLimiter } from '../../rateLimit/limiter.js';
import { recordRateLimitDecision } from '../../metrics/record.js';
import type { AcmeDnsRegistrationOfUpdate } from './registrations.repository.js';

type Budget = PoolInput & { description: string };

/**
 * The pools an update of `registration` is counted on, in order (docs/operations.md, ACME-DNS budgets): the
 * registration's own (the `public` limits, per credential rather than per address); its
 * organisation's in its mode, all registrations together, scaled by the plan; and, for one made by a
 * person, all the registrations that person made in every organisation, USER_CEILING_FACTOR times
 * one organisation's, so that making organisations does not make updates.
 */
function budgetsOf(registration: AcmeDnsRegistrationOfUpdate, scale: number): Budget[] {
  const mode = registration.livemode ? 'live' : 'test';
  const organisation = planScaled(ACME_DNS_UPDATES, registration.orgPlan, scale);
  const budgets: Budget[] = [
    { pool: 'public', subject: `credential:acme_dns:${registration.id}`, limits: ADDRESS_LIMITS.public, description: 'ACME-DNS updates (per registration)' },
    {
      pool: 'acme_dns_org',
      subject: `${registration.orgId}:${mode}`,
      limits: organisation,
      description: `ACME-DNS updates of this organisation in ${mode} mode (all its registrations together, ${registration.orgPlan} plan)`,
    },
  ];
  if (registration.createdBy) {
    budgets.push({
      pool: 'acme_dns_person',
      subject: registration.createdBy,
      limits: { perMinute: organisation.perMinute * USER_CEILING_FACTOR, perSecond: organisation.perSecond * USER_CEILING_FACTOR },
      description: `ACME-DNS updates of the registrations one person made (in all their organisations together, ${USER_CEILING_FACTOR}x one organisation's)`,
    });
  }
  return budgets;
}

/**
 * Counts one update of a verified credential on its budgets, in one Redis round trip, before its
 * body is read; 429 with Retry-After past any of them. The X-RateLimit-* headers are the
 * organisation's budget, the one an ACME client meets first (or the one that refused).
 */
export async function consumeUpdateBudgets(
  deps: { rateLimiter: RateLimiter; config: Pick<Config, 'rateLimitScale'> },
  ctx: Pick<ParameterizedContext, 'set'>,
  registration: AcmeDnsRegistrationOfUpdate,
): Promise<void> {
  const budgets = budgetsOf(registration, deps.config.rateLimitScale);
  const decisions = await deps.rateLimiter.consumeChain(budgets);
  const last = decisions.length - 1;
  const refused = !decisions[last]!.allowed;
  setRateLimitHeaders(ctx, decisions[refused ? last : Math.min(1, last)]!);
  recordRateLimitDecision('public', 'key', !refused);
  if (!refused) return;
  const { limits, description } = budgets[last]!;
  throw new RateLimitedError({ group: description, perMinute: limits.perMinute, perSecond: limits.perSecond, retryAfterSeconds: decisions[last]!.retryAfterSeconds ?? 1 });
}
