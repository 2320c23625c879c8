/**
 * Workflow code shared by every feature's workflows: retry policies from a workflow's input, and the
 * stable code of whatever failed. Deterministic: it imports only @temporalio/workflow and types.
 */
import { ActivityFailure, ApplicationFailure, type RetryPolicy } from '@temporalio/workflow';
import type { RetryTiming } from './retries.contract.js';

/** Registrar refusals that no retry can fix; every other failure is retried with back-off. */
export const PERMANENT_REGISTRAR_CODES = ['REGISTRAR_REJECTED', 'DOMAIN_NOT_AVAILABLE', 'DOMAIN_LOCKED'];

/** A retry policy from the workflow's input: exponential back-off (doubling), at most `maximumAttempts` when given. */
export function retryPolicy(timing: RetryTiming, nonRetryableErrorTypes?: string[]): RetryPolicy {
  return {
    initialInterval: timing.initialIntervalMs,
    backoffCoefficient: 2,
    maximumInterval: timing.maximumIntervalMs,
    ...(timing.maximumAttempts !== undefined ? { maximumAttempts: timing.maximumAttempts } : {}),
    ...(nonRetryableErrorTypes ? { nonRetryableErrorTypes } : {}),
  };
}

/** The stable code and detail of whatever ended an operation. */
export function failureOf(err: unknown): { code: string; detail: string } {
  const cause = err instanceof ActivityFailure ? err.cause : err;
  if (cause instanceof ApplicationFailure) return { code: cause.type ?? 'REGISTRAR_REJECTED', detail: cause.message };
  return { code: 'INTERNAL', detail: 'The operation failed unexpectedly' };
}
