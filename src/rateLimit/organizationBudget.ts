import type { RateLimiter } from './limiter.js';

/**
 * Spends `cost` from an organisation's budget of `perMinute` in one mode, every key and member
 * together (the events it emits, the records its bulk edits change: docs/api-guide.md, Webhooks and
 * events, DNS). A minute's budget may be spent at once, so its burst is the minute; a cost above
 * the whole budget is charged as the whole, so one request is never refused for ever. The seconds to
 * wait when refused, else undefined.
 */
export async function spendOrganizationBudget(
  rateLimiter: Pick<RateLimiter, 'consumePool'>,
  props: { pool: string; orgId: string; livemode: boolean; perMinute: number; cost: number },
): Promise<{ retryAfterSeconds: number } | undefined> {
  const decision = await rateLimiter.consumePool({
    pool: props.pool,
    subject: `org:${props.orgId}:${props.livemode ? 'live' : 'test'}`,
    limits: { perMinute: props.perMinute, perSecond: props.perMinute },
    cost: Math.min(props.cost, props.perMinute),
  });
  return decision.allowed ? undefined : { retryAfterSeconds: decision.retryAfterSeconds ?? 1 };
}
