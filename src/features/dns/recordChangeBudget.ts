import type { Config } from '../../config.js';
import type { AppState } from '../../http/context.js';
import type { RateLimiter } from '../../rateLimit/limiter.js';
import { planScaledCount } from '../../rateLimit/groups.js';
import { spendOrganizationBudget } from '../../rateLimit/organizationBudget.js';
import type { Mode } from '../../db/modeScope.js';
import { ApiError } from '../../errors.js';

export interface RecordChangeBudgetDeps {
  rateLimiter: RateLimiter;
  config: Pick<Config, 'recordChangesPerMinutePerOrg' | 'rateLimitScale'>;
}

/** 429: the organisation's batches and imports have changed as many records this minute, in this mode, as they may. */
export class RecordChangeBudgetSpentError extends ApiError {
  constructor(props: { perMinute: number; retryAfterSeconds: number }) {
    super(
      'RATE_LIMITED',
      `This organisation's batches and zone imports have changed ${props.perMinute} records this minute in this mode, the most they may (every key and member together); ` +
        `nothing was changed. Retry after ${props.retryAfterSeconds} s.`,
      { headers: { 'Retry-After': String(props.retryAfterSeconds) } },
    );
  }
}

/**
 * Admits the record changes of a batch or an import on an organisation's path (how many records it
 * creates, changes or deletes), before any is made, or refuses it with 429 `RATE_LIMITED` and
 * Retry-After once the organisation's requests have changed RECORD_CHANGES_PER_MINUTE_PER_ORG this
 * minute in this mode (times the plan): one tenant's bulk edits take a bounded share of the DNS host
 * and the database, whatever its rate limits let it send (docs/api-guide.md, DNS).
 */
export async function admitRecordChanges(deps: RecordChangeBudgetDeps, state: Pick<AppState, 'org'>, mode: Mode, changes: number): Promise<void> {
  if (!state.org) throw new Error('record changes are admitted on an organisation path only');
  const { id: orgId, plan } = state.org.org;
  const perMinute = planScaledCount(deps.config.recordChangesPerMinutePerOrg, plan, deps.config.rateLimitScale);
  const refused = await spendOrganizationBudget(deps.rateLimiter, { pool: 'record-changes', orgId, livemode: mode.livemode, perMinute, cost: changes });
  if (refused) throw new RecordChangeBudgetSpentError({ perMinute, ...refused });
}

/** What the reference says of the refusal, on the routes that admit their changes here. */
export const RECORD_CHANGE_BUDGET_REFUSAL =
  'the organisation’s batches and imports have changed as many records this minute in this mode as they may (`RATE_LIMITED`, with `Retry-After`); nothing was changed';
