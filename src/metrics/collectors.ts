import { Gauge, type Registry } from 'prom-client';
import type { Redis } from 'ioredis';
import type { Db } from '../db/pool.js';
import type { Metrics } from './registry.js';

/** Operations pending or running, by type, status and mode, with the age of the oldest. */
export interface UnfinishedOperations {
  type: string;
  status: string;
  livemode: boolean;
  count: number;
  oldestAgeSeconds: number;
}

interface StateSources {
  db: Db;
  /** The idempotency claims' pool (src/db/pool.ts): when it runs out, every idempotent write waits. */
  claimsDb: Db;
  redis: Redis;
  subscriber: Redis;
  /** Read at scrape time; given by the caller, as shared plumbing never imports a feature. */
  unfinishedOperations: () => Promise<UnfinishedOperations[]>;
}

const sources = new WeakMap<Registry, StateSources>();

/**
 * Gauges read at scrape time: the PostgreSQL pool, the Redis connections, and the operations still
 * pending or running with the age of the oldest (`OperationsStuck` in deploy/prometheus/alerts.yml).
 * They read the dependencies last given for the registry (a process builds one set; a test may build more).
 */
export function observeState(metrics: Pick<Metrics, 'registry'>, deps: StateSources): void {
  const firstTime = !sources.has(metrics.registry);
  sources.set(metrics.registry, deps);
  if (firstTime) registerStateGauges(metrics.registry);
}

function registerStateGauges(registry: Registry): void {
  const registers = [registry];
  const current = () => sources.get(registry)!;
  new Gauge({
    name: 'pg_pool_connections',
    help: 'PostgreSQL pool connections by purpose (work, claims) and state (total, idle), and requests waiting for one (waiting)',
    labelNames: ['purpose', 'state'] as const,
    registers,
    collect() {
      const { db, claimsDb } = current();
      for (const [purpose, pool] of [['work', db], ['claims', claimsDb]] as const) {
        this.set({ purpose, state: 'total' }, pool.totalCount);
        this.set({ purpose, state: 'idle' }, pool.idleCount);
        this.set({ purpose, state: 'waiting' }, pool.waitingCount);
      }
    },
  });
  new Gauge({
    name: 'redis_connection_ready',
    help: 'Whether a Redis connection is ready (1) or not (0): commands (the limiter, caches) and subscriber (key invalidation)',
    labelNames: ['connection'] as const,
    registers,
    collect() {
      const { redis, subscriber } = current();
      this.set({ connection: 'commands' }, redis.status === 'ready' ? 1 : 0);
      this.set({ connection: 'subscriber' }, subscriber.status === 'ready' ? 1 : 0);
    },
  });
  const unfinished = new Gauge({
    name: 'operations_unfinished',
    help: 'Operations pending or running, by type, status and mode (read from PostgreSQL at scrape time)',
    labelNames: ['type', 'status', 'mode'] as const,
    registers,
  });
  new Gauge({
    name: 'operations_unfinished_oldest_age_seconds',
    help: 'Age of the oldest pending or running operation, by type, status and mode',
    labelNames: ['type', 'status', 'mode'] as const,
    registers,
    async collect() {
      this.reset();
      unfinished.reset();
      // A database outage must not fail the whole scrape: the pool gauges above still tell the story.
      const rows = await current().unfinishedOperations().catch(() => []);
      for (const row of rows) {
        const labels = { type: row.type, status: row.status, mode: row.livemode ? 'live' : 'test' };
        unfinished.set(labels, row.count);
        this.set(labels, row.oldestAgeSeconds);
      }
    },
  });
}
