/**
 * `npm run fault -- --production`: the failovers of the production topology (docs/operations.md), one
 * after another with the clients working throughout. The PostgreSQL primary is SIGKILLed with its
 * Patroni (Patroni promotes the synchronous standby; HAProxy follows), the Redis master is SIGKILLed
 * (the Sentinels promote the replica; ioredis follows them), each Temporal server process is SIGKILLed
 * in turn (HAProxy sends the clients to the other; the ring hands over the shards and task queues),
 * the worker is cut from Temporal for 10 s, and the api and the worker are SIGKILLed. Each killed node
 * is started again after the outage and rejoins (the old primary as the new standby), and the next
 * fault waits until the cluster is whole again. Returns when each fault happened.
 */
import { until } from '../lib/cluster/daemon.js';
import type { FaultTimings } from './faults.js';
import type { FaultStack, ProductionEngines } from './stack.js';

export interface FaultEvent {
  name: string;
  /** When the fault began, ms since the epoch. */
  at: number;
  /** How long the engine took to be whole again (new primary or master elected, node back), in ms. */
  engineMs?: number;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const PARTITION_MS = 10_000;
const HEALTHY_TIMEOUT_MS = 120_000;

export async function runProductionFaults(stack: FaultStack, production: ProductionEngines, timings: FaultTimings, log: (line: string) => void): Promise<FaultEvent[]> {
  const { cluster, workerLink } = production;
  const events: FaultEvent[] = [];
  const fault = async (name: string, act: () => Promise<void>, heal: () => Promise<void>, whole: () => Promise<void>) => {
    await sleep(timings.settleMs);
    const at = Date.now();
    log(`${name}: now`);
    await act();
    const event: FaultEvent = { name, at };
    events.push(event);
    await heal();
    await whole();
    event.engineMs = Date.now() - at;
    log(`${name}: whole again after ${(event.engineMs / 1000).toFixed(1)} s`);
  };

  const primary = await cluster.postgres.primary();
  if (!primary) throw new Error('no PostgreSQL primary before the first fault');
  await fault(
    `PostgreSQL primary ${primary.name} SIGKILLed`,
    () => primary.kill(),
    async () => {
      // The standby is promoted while the old primary is away; it then rejoins as the standby.
      await until(async () => (await cluster.postgres.primary()) !== undefined, 'no PostgreSQL primary promoted', HEALTHY_TIMEOUT_MS, 250);
      log(`PostgreSQL: ${(await cluster.postgres.primary())?.name} promoted`);
      await sleep(timings.outageMs);
      await primary.patroni.start();
    },
    () => cluster.postgres.waitHealthy(HEALTHY_TIMEOUT_MS),
  );

  const masterPort = await cluster.redis.masterPort();
  const master = cluster.redis.servers.find((s) => s.port === masterPort)!;
  await fault(
    `Redis master :${masterPort} SIGKILLed`,
    () => master.redis.kill(),
    async () => {
      await until(async () => (await cluster.redis.masterPort().catch(() => masterPort)) !== masterPort, 'no Redis replica promoted', HEALTHY_TIMEOUT_MS, 250);
      log(`Redis: :${await cluster.redis.masterPort()} promoted`);
      await sleep(timings.outageMs);
      await master.redis.start();
    },
    () => cluster.redis.waitHealthy(HEALTHY_TIMEOUT_MS),
  );

  for (const node of cluster.temporal.nodes) {
    await fault(
      `Temporal ${node.name} SIGKILLed`,
      () => node.server.kill(),
      async () => {
        await sleep(timings.outageMs);
        await node.server.start();
      },
      () => Promise.resolve(),
    );
  }

  await fault(
    'worker cut from Temporal for 10 s',
    () => Promise.resolve(workerLink.hold()),
    async () => {
      await sleep(PARTITION_MS);
      await workerLink.restore();
    },
    () => Promise.resolve(),
  );

  for (const round of [1, 2]) {
    await fault(
      `api and worker SIGKILLed (${round} of 2)`,
      async () => {
        await Promise.all(
          (['api', 'worker'] as const).map(async (role) => log(`${role}: serving again ${((await stack.killAndRestart(role)) / 1000).toFixed(1)} s after its SIGKILL`)),
        );
      },
      () => Promise.resolve(),
      () => Promise.resolve(),
    );
  }
  await sleep(timings.settleMs);
  return events;
}
