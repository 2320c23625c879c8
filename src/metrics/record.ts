/**
 * The one-line hooks shared code calls to count what happened, into the process's metrics
 * (`processMetrics()`). Each takes only values from closed lists (src/metrics/registry.ts).
 */
import type { LeakSource } from './registry.js';
import type { RateLimitGroup, AddressPool } from '../rateLimit/groups.js';
import { modeLabel, processMetrics, type FinalOperationStatus, type LedgerFlow, type ModeLabel, type OperationTypeLabel } from './registry.js';

/** A ledger entry was written (inside its transaction): its flow and amount. */
export function recordLedgerEntry(flow: LedgerFlow, mode: { livemode: boolean }, amount: number): void {
  const labels = { flow, mode: modeLabel(mode.livemode) };
  processMetrics().ledgerEntries.inc(labels);
  processMetrics().ledgerAmount.inc(labels, amount);
}

/** An operation reached its final status (counted once: the row changes only while unfinished). */
export function recordOperationFinished(op: {
  type: OperationTypeLabel;
  status: FinalOperationStatus | 'pending' | 'running';
  livemode: boolean;
  createdAt: Date;
  completedAt: Date | null;
}): void {
  const seconds = ((op.completedAt ?? new Date()).getTime() - op.createdAt.getTime()) / 1000;
  processMetrics().operationsFinished.observe({ type: op.type, status: op.status, mode: modeLabel(op.livemode) }, Math.max(0, seconds));
}

export type RateLimitPool = 'key' | 'user' | 'address';

export function recordRateLimitDecision(group: RateLimitGroup | AddressPool, pool: RateLimitPool, allowed: boolean): void {
  processMetrics().rateLimitDecisions.inc({ group, pool, outcome: allowed ? 'allowed' : 'refused' });
}

export type IdempotencyOutcome = 'first' | 'replayed' | 'conflict_reused' | 'conflict_in_use';

export function recordIdempotency(outcome: IdempotencyOutcome): void {
  processMetrics().idempotency.inc({ outcome });
}

export function recordLeakAlert(source: LeakSource, response: 'started' | 'already_handled'): void {
  processMetrics().leakAlerts.inc({ source, response });
}

/** A leak workflow decided what to do with a key (a retried activity may count `already_revoked` again). */
export function recordLeakedKey(mode: ModeLabel, outcome: 'revoked' | 'already_revoked' | 'reported'): void {
  processMetrics().leakedKeys.inc({ mode, outcome });
}

/** The leak-scan schedule's scan got through every page (`LeakScanScheduleNotRunning` watches this). */
export function recordLeakScanCompleted(): void {
  processMetrics().leakScans.inc();
  processMetrics().leakScanLastSuccess.set(Date.now() / 1000);
}
