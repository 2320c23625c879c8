import { isGrpcServiceError } from '@temporalio/client';
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
  /** Tries in all; the wait doubles from `firstDelayMs` between them. */
  attempts?: number;
  firstDelayMs?: number;
}

/**
 * Runs an idempotent start-up call, again while Temporal answers busy: a worker started while the
 * cluster is loaded waits for it rather than exiting, and still exits, after about a minute, when
 * Temporal stays unreachable (its supervisor then restarts it).
 */
export async function retryWhileTemporalBusy<T>(what: string, call: () => Promise<T>, options: BusyRetryOptions): Promise<T> {
  const { logger, attempts = 6, firstDelayMs = 2_000 } = options;
  for (let attempt = 1; ; attempt++) {
    try {
      return await call();
    } catch (err) {
      if (attempt >= attempts || !isTemporalBusy(err)) throw err;
      const delayMs = firstDelayMs * 2 ** (attempt - 1);
      logger.warn({ err, attempt, delayMs }, `${what}: Temporal is busy; trying again`);
      await new Promise((resolve) => setTimeout(resolve, delayMs));
    }
  }
}
