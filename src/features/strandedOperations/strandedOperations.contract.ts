import type { ScheduledRunInput } from '../../temporal/retries.contract.js';

export interface ReconcileOperationsInput extends ScheduledRunInput {
  /** An operation younger than this may still be having its workflow started by the api: left alone. */
  graceMs: number;
  /** Older than this, a workflow is no longer started (the customer has moved on): abandoned instead. */
  maxStartAgeMs: number;
  /** At most this many operations a run; the next run takes the rest. */
  limit: number;
}

/** What one reconciler run did, by operation id: the schedule's workflow result, read in the Temporal UI. */
export interface ReconcileOperationsSummary {
  examined: number;
  /** A workflow exists for it (it has not claimed the operation yet): nothing to do. */
  hasWorkflow: string[];
  started: string[];
  abandoned: string[];
  /** Reservations still held for failed or cancelled operations, released now. */
  released: string[];
}
