import { defineQuery, defineSignal } from '@temporalio/workflow';
import { OWN_STORE_RETRY, type RetryTiming } from '../../temporal/retries.contract.js';

/**
 * How long each part of a domain's life lasts (docs/api-guide.md, Operations and workflows). Inputs of the lifecycle
 * workflow, so a test can run a whole life short; test clocks move the lifecycle's "now" instead.
 */
export interface DomainLifecycleDurations {
  /** Before expiry: the first auto-renewal attempt. */
  autoRenewLeadMs: number;
  /** Between auto-renewal attempts that failed (short funds), until the domain expires. */
  autoRenewRetryMs: number;
  /** Before expiry: the "expiring" notices of a domain without auto-renew, e.g. 30, 7 and 1 days. */
  noticeLeadsMs: number[];
  /** After expiry: how long renewal still works before the domain is deleted. */
  graceMs: number;
  /** While a renewal runs, how often its end is looked for if no signal came (a safety net). */
  renewalRecheckMs: number;
}

/** The lifecycle's activities, by what they call. */
export interface DomainLifecycleRetries {
  /** Reading and changing the domain, recording notices, starting an auto-renewal. */
  store: RetryTiming;
  /** Until the SMTP server accepts the notice. */
  mail: RetryTiming;
  /** Deleting a deleted live domain's zone at the DNS provider, which may be down for a while. */
  dnsZone: RetryTiming;
}

export const DOMAIN_LIFECYCLE_RETRIES: DomainLifecycleRetries = {
  store: OWN_STORE_RETRY,
  mail: { initialIntervalMs: 1_000, maximumIntervalMs: 600_000 },
  dnsZone: { initialIntervalMs: 5_000, maximumIntervalMs: 3_600_000 },
};

export interface DomainLifecycleInput {
  domainId: string;
  orgId: string;
  livemode: boolean;
  name: string;
  durations: DomainLifecycleDurations;
  /** Absent: DOMAIN_LIFECYCLE_RETRIES. */
  retries?: Partial<DomainLifecycleRetries>;
  /**
   * The term being watched and the lifecycle time (ms since the epoch, test clock included) up to
   * which its steps are handled; carried across continue-as-new. Absent: the domain's current term, from now.
   */
  cycle?: { expiresAt: string; handledUntil: number };
  /**
   * Where a new term's handling starts (lifecycle time): steps due before it fell before the
   * lifecycle watched the domain. Set by whoever starts the workflow, so a test clock moved before
   * the first run still brings every step of the days it skipped. Absent: the run's own "now".
   */
  watchFrom?: number;
}

export interface DomainLifecycleResult {
  /** `deleted` at the end of the grace period; `gone`: the domain left our care another way (failed, missing). */
  outcome: 'deleted' | 'gone';
}

/** What the lifecycle reads of its domain before each step (src/features/lifecycle/steps.ts). */
export interface DomainLifecycleState {
  status: 'registering' | 'active' | 'transfer_pending' | 'expired' | 'failed' | 'deleted';
  expiresAt: string | null;
  autoRenew: boolean;
  clockOffsetDays: number;
  /** A renewal (by hand or automatic) has not finished: nothing else happens to the domain meanwhile. */
  renewalOpen: boolean;
}

/**
 * What a lifecycle step did: `done`, `skipped` (no longer applies: renewed meanwhile, auto-renew
 * turned off), or `busy` (a renewal runs: try again once it ends). `noticeId` names the notice to mail.
 */
export interface LifecycleStepOutcome {
  outcome: 'done' | 'skipped' | 'busy';
  noticeId: string | null;
  detail?: string;
}

/** A step's outcome and the domain as the step left it, so the workflow need not read it again. */
export interface LifecycleStepResult extends LifecycleStepOutcome {
  state: DomainLifecycleState | null;
}

/** The domain's test clock moved (POST …/domains/{domain}/test-clock): its lifecycle looks again at once. */
export const testClockAdvancedSignal = defineSignal('testClockAdvanced');

/** The domain changed (renewed, a renewal failed, auto-renew turned on or off): its lifecycle looks again. */
export const domainChangedSignal = defineSignal<[{ reason: string }]>('domainChanged');

/**
 * The domain now belongs to another organisation (src/features/domainMoves/): the lifecycle goes on
 * for `orgId`, its input and `OrgId` search attribute changed to it. Its steps read the domain's
 * organisation from the database, so they act for the new one even before this signal arrives.
 */
export const domainMovedSignal = defineSignal<[{ orgId: string }]>('domainMoved');

/** Where a lifecycle run stands, as the `lifecycleProgress` query answers it. */
export interface DomainLifecycleProgress {
  /** The domain's test clock as the run last read it from the database; null before its first read. */
  clockOffsetDays: number | null;
  /**
   * Waiting for a signal or for its next step's time, with no step due, no renewal running and no
   * signal unread: everything the clock it read brought has been done, notices mailed included.
   */
  idle: boolean;
}

/** Lets an operator or a test see that the lifecycle has finished with what it was told (queries add nothing to history). */
export const lifecycleProgressQuery = defineQuery<DomainLifecycleProgress>('lifecycleProgress');
