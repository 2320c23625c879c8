import type { DomainLifecycleDurations } from './domainLifecycle.contract.js';

/** One thing that happens to a domain at a point of its lifecycle's time (ms since the epoch). */
export type LifecycleStep =
  | { kind: 'auto_renew'; at: number }
  | { kind: 'expiring'; at: number; daysLeft: number }
  | { kind: 'expire'; at: number }
  | { kind: 'delete'; at: number };

const DAY_MS = 86_400_000;

/**
 * Every step of one term, in the order they fall due. With auto-renew: an attempt at the lead time
 * and again after each retry interval until expiry; without: the "expiring" notices. Then expiry,
 * and deletion once the grace period has passed. Pure, so the workflow and its tests agree.
 */
export function lifecycleSteps(expiresAtMs: number, autoRenew: boolean, durations: DomainLifecycleDurations): LifecycleStep[] {
  const steps: LifecycleStep[] = [];
  if (autoRenew) {
    const retry = Math.max(durations.autoRenewRetryMs, 1);
    for (let at = expiresAtMs - durations.autoRenewLeadMs; at < expiresAtMs; at += retry) steps.push({ kind: 'auto_renew', at });
  } else {
    for (const lead of durations.noticeLeadsMs) steps.push({ kind: 'expiring', at: expiresAtMs - lead, daysLeft: Math.round(lead / DAY_MS) });
  }
  steps.push({ kind: 'expire', at: expiresAtMs }, { kind: 'delete', at: expiresAtMs + durations.graceMs });
  return steps.sort((a, b) => a.at - b.at);
}

/** The lifecycle's "now": real (workflow) time plus the domain's test clock. */
export function lifecycleNow(realNowMs: number, clockOffsetDays: number): number {
  return realNowMs + clockOffsetDays * DAY_MS;
}
