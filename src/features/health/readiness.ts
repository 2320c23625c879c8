import type { PlatformDeps } from '../../platformDeps.js';
import { taskQueueHasPollers } from '../../temporal/client.js';
import { pingDatabase } from '../../db/pool.js';

export type CheckName = 'postgres' | 'redis' | 'temporal' | 'worker' | 'rate_limiter';
/** All a caller learns publicly; why a dependency is down goes to the log only (`reasons`). */
export type CheckResult = 'ok' | 'down';

const CHECK_TIMEOUT_MS = 2_000;

function withTimeout<T>(work: Promise<T>, name: string): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`${name} did not answer within ${CHECK_TIMEOUT_MS} ms`)), CHECK_TIMEOUT_MS);
    work.then(resolve, reject).finally(() => clearTimeout(timer));
  });
}

export type ReadinessDeps = Pick<PlatformDeps, 'db' | 'redis' | 'temporal' | 'config' | 'rateLimiter'>;

const CHECKS: Record<CheckName, (deps: ReadinessDeps) => Promise<void>> = {
  postgres: ({ db }) => pingDatabase(db),
  redis: async ({ redis }) => {
    await redis.ping();
  },
  temporal: async ({ temporal }) => {
    await temporal.connection.ensureConnected();
    await temporal.connection.workflowService.getSystemInfo({});
  },
  worker: async ({ temporal, config }) => {
    if (!(await taskQueueHasPollers(temporal, config))) {
      throw new Error(`no worker is polling task queue "${config.temporal.taskQueue}"`);
    }
  },
  // Requests are still served while Redis is away, limited per process in memory; say so.
  rate_limiter: ({ rateLimiter }) =>
    rateLimiter.degraded()
      ? Promise.reject(new Error('degraded: Redis unreachable, limits enforced per process in memory'))
      : Promise.resolve(),
};

export interface Readiness {
  ready: boolean;
  checks: Record<CheckName, CheckResult>;
  /** Why each failing check failed: client messages, addresses. For the log, never for a response. */
  reasons: Partial<Record<CheckName, string>>;
}

/** Runs every dependency check in parallel, each bounded by a timeout. */
export async function checkReadiness(deps: ReadinessDeps): Promise<Readiness> {
  const names = Object.keys(CHECKS) as CheckName[];
  const outcomes = await Promise.allSettled(names.map((name) => withTimeout(CHECKS[name](deps), name)));
  const checks = {} as Record<CheckName, CheckResult>;
  const reasons: Partial<Record<CheckName, string>> = {};
  names.forEach((name, i) => {
    const outcome = outcomes[i]!;
    checks[name] = outcome.status === 'fulfilled' ? 'ok' : 'down';
    if (outcome.status === 'rejected') reasons[name] = String((outcome.reason as Error)?.message ?? outcome.reason);
  });
  return { ready: names.every((name) => checks[name] === 'ok'), checks, reasons };
}
