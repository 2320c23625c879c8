/** How long a workflow waits between an activity's attempts: part of every workflow's input (docs/architecture.md). */

/**
 * How long a workflow waits between attempts of an activity that failed, and how many it makes
 * (absent: until one succeeds). Every duration a workflow waits is part of its input, so tests run
 * the long paths (back-offs, exhausted retries) in seconds; the starters send the production values
 * below, and a workflow started without them (older operations, recorded histories) uses them too.
 */
export interface RetryTiming {
  initialIntervalMs: number;
  /** The back-off doubles after each attempt, up to this. */
  maximumIntervalMs: number;
  maximumAttempts?: number;
}

/** Our own database and Redis: retried until they answer. */
export const OWN_STORE_RETRY: RetryTiming = { initialIntervalMs: 1_000, maximumIntervalMs: 30_000 };

/**
 * The scheduled runs (leak scan, operation and registrar reconcilers, idempotency purge) each make
 * one activity call; its retries, when absent, are the workflow's SCHEDULED_RETRIES entry.
 */
export interface ScheduledRunInput {
  retry?: RetryTiming;
}

export const SCHEDULED_RETRIES = {
  /** One attempt pages through all results; GitHub's rate limits set the delay (Retry-After). */
  leakScanWorkflow: { initialIntervalMs: 10_000, maximumIntervalMs: 10 * 60_000, maximumAttempts: 10 },
  reconcileOperationsWorkflow: { initialIntervalMs: 5_000, maximumIntervalMs: 500_000, maximumAttempts: 5 },
  /** One attempt pages through the registrar's whole list. */
  registrarReconcileWorkflow: { initialIntervalMs: 10_000, maximumIntervalMs: 10 * 60_000, maximumAttempts: 10 },
  purgeIdempotencyKeysWorkflow: { initialIntervalMs: 5_000, maximumIntervalMs: 500_000, maximumAttempts: 5 },
  purgeEventsWorkflow: { initialIntervalMs: 5_000, maximumIntervalMs: 500_000, maximumAttempts: 5 },
  purgeAuditEventsWorkflow: { initialIntervalMs: 5_000, maximumIntervalMs: 500_000, maximumAttempts: 5 },
} as const satisfies Record<string, RetryTiming>;
