/**
 * The faults, one after another with the clients working throughout: PostgreSQL stopped, Redis
 * stopped, Temporal frozen (SIGSTOP), each for `outageMs`, then the api and the worker SIGKILLed and
 * started again, twice. Between two faults the service gets `settleMs` to show it recovered.
 */
import type { DevEngines, FaultStack } from './stack.js';

export interface FaultTimings {
  outageMs: number;
  settleMs: number;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

export async function runFaults(stack: FaultStack, dev: DevEngines, timings: FaultTimings, log: (line: string) => void): Promise<void> {
  const { postgres, redis, temporal } = dev;
  const outage = async (what: string, stop: () => Promise<void> | void, start: () => Promise<void> | void) => {
    await sleep(timings.settleMs);
    log(`${what}: down`);
    await stop();
    await sleep(timings.outageMs);
    await start();
    log(`${what}: back`);
  };
  await outage('PostgreSQL', postgres.stop, postgres.start);
  await outage('Redis', redis.stop, redis.start);
  await outage(
    'Temporal (SIGSTOP)',
    () => void process.kill(temporal.pid, 'SIGSTOP'),
    () => void process.kill(temporal.pid, 'SIGCONT'),
  );
  for (const round of [1, 2]) {
    await sleep(timings.settleMs);
    log(`api and worker: SIGKILL (${round} of 2)`);
    await Promise.all(
      (['api', 'worker'] as const).map(async (role) => log(`${role}: serving again ${((await stack.killAndRestart(role)) / 1000).toFixed(1)} s after its SIGKILL (${round} of 2)`)),
    );
  }
  await sleep(timings.settleMs);
}
