import type { AppDeps } from '../deps.js';
import { taskQueueHasPollers } from '../temporal/client.js';

export type CheckName = 'postgres' | 'redis' | 'temporal' | 'worker' | 'rate_limiter';
/** `ok`, or why the dependency is not usable. */
export type CheckResult = string;

const CHECK_TIMEOUT_MS = 2_000;

function withTimeout<T>(work: Promise<T>, name: string): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`${name} did not answer within ${CHECK_TIMEOUT_MS} ms`)), CHECK_TIMEOUT_MS);
    work.then(resolve, reject).finally(() => clearTimeout(timer));
  });
}

type Deps = Pick<AppDeps, 'db' | 'redis' | 'temporal' | 'config' | 'rateLimiter'>;

const CHECKS: Record<CheckName, (deps: Deps) => Promise<void>> = {
  postgres: async ({ db }) => {
    await db.query('SELECT 1');
  },
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

/** Runs every dependency check in parallel, each bounded by a timeout. */
export async function checkReadiness(deps: Deps): Promise<{ ready: boolean; checks: Record<CheckName, CheckResult> }> {
  const names = Object.keys(CHECKS) as CheckName[];
  const outcomes = await Promise.allSettled(names.map((name) => withTimeout(CHECKS[name](deps), name)));
  const checks = Object.fromEntries(
    names.map((name, i) => {
      const outcome = outcomes[i]!;
      return [name, outcome.status === 'fulfilled' ? 'ok' : String((outcome.reason as Error)?.message ?? outcome.reason)];
    }),
  ) as Record<CheckName, CheckResult>;
  return { ready: Object.values(checks).every((c) => c === 'ok'), checks };
}
