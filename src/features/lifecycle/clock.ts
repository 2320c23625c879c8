import type { Domain } from '../domains/index.js';

const DAY_MS = 86_400_000;

/** The lifecycle's "now" for a domain: real time plus its test clock (always 0 in live mode). */
export function lifecycleNowOf(domain: Pick<Domain, 'clockOffsetDays'>, realNow = Date.now()): Date {
  return new Date(realNow + domain.clockOffsetDays * DAY_MS);
}
