import { setTimeout as sleep } from 'node:timers/promises';
import { isGrpcServiceError, type Connection } from '@temporalio/client';
import type { Logger } from '../logger.js';

/**
 * gRPC codes a loaded or restarting frontend answers with, and an identical call later may not:
 * the client's own retry (`@temporalio/client` grpc-retry) takes UNAVAILABLE and RESOURCE_EXHAUSTED
 * but never DEADLINE_EXCEEDED, which a frontend behind a slow store returns (docs/operations.md).
 */
const BUSY_CODES: ReadonlySet<number> = new Set([
  4, // DEADLINE_EXCEEDED
  8, // RESOURCE_EXHAUSTED
  14, // UNAVAILABLE
]);

/** Whether the error, or anything it was caused by, is a gRPC answer of a busy frontend. */
export function isTemporalBusy(err: unknown): boolean {
  for (let cause = err; cause instanceof Error; cause = cause.cause) {
    if (isGrpcServiceError(cause) && BUSY_CODES.has(cause.code)) return true;
  }
  return false;
}

export interface BusyRetryOptions {
  logger: Pick<Logger, 'warn'>;
  /** The connection the call's requests go through: each try gets `tryDeadlineMs` on it. */
  connection: Pick<Connection, 'withDeadline'>;
  /** Tries in all; the wait doubles from `firstDelayMs` between them. */
  attempts?: number;
  firstDelayMs?: number;
  /**
   * How long one try may take, all its requests together. Without it a frozen frontend (its port open,
   * nothing answered) holds the call, and the worker's start, with nothing logged.
   */
  tryDeadlineMs?: number;
}

/**
 * Runs an idempotent start-up call, again while Temporal answers busy or not in time: a worker
 * started while the cluster is loaded waits for it rather than exiting, logs each wait, and exits
 * after two and a half minutes (six tries of at most 15 s, waits of 2 to 32 s) if Temporal stays so, for its
 * supervisor to restart it (docs/operations.md).
 */
export async function retryWhileTemporalBusy<T>(what: string, call: () => Promise<T>, options: BusyRetryOptions): Promise<T> {
  const { logger, connection, attempts = 6, firstDelayMs = 2_000, tryDeadlineMs = 15_000 } = options;
  for (let attempt = 1; ; attempt++) {
    try {
      return await connection.withDeadline(Date.now() + tryDeadlineMs, call);
    } catch (err) {
      if (attempt >= attempts || !isTemporalBusy(err)) throw err;
      const delayMs = firstDelayMs * 2 ** (attempt - 1);
      logger.warn({ err, attempt, delayMs }, `${what}: Temporal is busy; trying again`);
      await sleep(delayMs);
    }
  }
}
