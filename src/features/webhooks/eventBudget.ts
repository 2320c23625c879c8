import type { Config } from '../../config.js';
import type { Db } from '../../db/pool.js';
import type { AppState } from '../../http/context.js';
import type { RateLimiter } from '../../rateLimit/limiter.js';
import { planScaledCount } from '../../rateLimit/groups.js';
import { spendOrganizationBudget } from '../../rateLimit/organizationBudget.js';
import { EventBudgetSpentError, WebhookBacklogLimitError } from './errors.js';
import { countDeliveriesWaiting } from './deliveriesWaiting.repository.js';
import type { Mode } from '../../db/modeScope.js';

export interface EventBudgetDeps {
  db: Db;
  rateLimiter: RateLimiter;
  config: Pick<Config, 'webhooks' | 'rateLimitScale'>;
}

/**
 * Admits the events a customer's request on an organisation's path is about to emit, before it
 * changes anything, or refuses it: 409 `WEBHOOK_BACKLOG_LIMIT` while the organisation has as many
 * webhook deliveries waiting in this mode as it may (WEBHOOK_DELIVERIES_WAITING_PER_ORG), 429
 * `RATE_LIMITED` with Retry-After once its requests have emitted EVENTS_PER_MINUTE_PER_ORG this
 * minute; both times the plan, every key and member together. Only requests are counted here: the
 * events the service emits itself (an operation ending, an expiry notice, a revoked key) never are,
 * so none is ever dropped. A request refused later (a 422) has still spent its events.
 */
export async function admitRequestEvents(deps: EventBudgetDeps, state: Pick<AppState, 'org'>, mode: Mode, events = 1): Promise<void> {
  if (!state.org) throw new Error('events are admitted on an organisation path only');
  const { id: orgId, plan } = state.org.org;
  const { webhooks } = deps.config;
  const waitingLimit = planScaledCount(webhooks.deliveriesWaitingPerOrg, plan);
  if ((await countDeliveriesWaiting(deps.db, mode, { orgId, upTo: waitingLimit })) >= waitingLimit) throw new WebhookBacklogLimitError(waitingLimit);
  const perMinute = planScaledCount(webhooks.eventsPerMinutePerOrg, plan, deps.config.rateLimitScale);
  const refused = await spendOrganizationBudget(deps.rateLimiter, { pool: 'events', orgId, livemode: mode.livemode, perMinute, cost: events });
  if (refused) throw new EventBudgetSpentError({ perMinute, ...refused });
}

/** What the reference says of the two refusals, on each route that admits its events here. */
export const EVENT_BUDGET_ERRORS = {
  409: 'the organisation has as many webhook deliveries waiting in this mode as it may (`WEBHOOK_BACKLOG_LIMIT`); nothing was changed',
  429: 'the organisation’s requests have emitted as many events this minute in this mode as they may (`RATE_LIMITED`); nothing was changed',
} as const;
