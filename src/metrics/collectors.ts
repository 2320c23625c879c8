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
  /** The webhook outbox's events not yet handed to delivery, read at scrape time like the above. */
  undispatchedEvents: () => Promise<{ count: number; oldestAgeSeconds: number }>;
}

const sources = new WeakMap<Registry, StateSources>();

/**
 * Gauges read at scrape time: the PostgreSQL pool, the Redis connections, the operations still
 * pending or running with the age of the oldest (`OperationsStuck` in deploy/prometheus/alerts.yml),
 * and the webhook outbox's backlog with the age of its oldest event (`WebhookOutboxStalled`).
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
  // A scrape collects every gauge at once: each pair below shares one read, so both show this scrape's.
  const operations = sharedRead(() => current().unfinishedOperations().catch((): UnfinishedOperations[] => []));
  const setOperations = async (gauge: Gauge<'type' | 'status' | 'mode'>, value: (row: UnfinishedOperations) => number) => {
    // A database outage must not fail the whole scrape: the pool gauges above still tell the story.
    const rows = await operations();
    gauge.reset();
    for (const row of rows) gauge.set({ type: row.type, status: row.status, mode: row.livemode ? 'live' : 'test' }, value(row));
  };
  new Gauge({
    name: 'operations_unfinished',
    help: 'Operations pending or running, by type, status and mode (read from PostgreSQL at scrape time)',
    labelNames: ['type', 'status', 'mode'] as const,
    registers,
    collect() {
      return setOperations(this, (row) => row.count);
    },
  });
  new Gauge({
    name: 'operations_unfinished_oldest_age_seconds',
    help: 'Age of the oldest pending or running operation, by type, status and mode',
    labelNames: ['type', 'status', 'mode'] as const,
    registers,
    collect() {
      return setOperations(this, (row) => row.oldestAgeSeconds);
    },
  });
  // During a database outage the last reading stands: an empty outbox would be a claim.
  const backlog = sharedRead(() => current().undispatchedEvents().catch(() => undefined));
  const setBacklog = async (gauge: Gauge, value: (reading: { count: number; oldestAgeSeconds: number }) => number) => {
    const reading = await backlog();
    if (reading) gauge.set(value(reading));
  };
  new Gauge({
    name: 'events_undispatched',
    help: 'Events not yet handed to webhook delivery by the outbox dispatcher (read from PostgreSQL at scrape time)',
    registers,
    collect() {
      return setBacklog(this, (reading) => reading.count);
    },
  });
  new Gauge({
    name: 'events_undispatched_oldest_age_seconds',
    help: 'Age of the oldest event not yet handed to webhook delivery; 0 when none waits',
    registers,
    collect() {
      return setBacklog(this, (reading) => reading.oldestAgeSeconds);
    },
  });
}

/** One read for every caller while it is in flight; the next call after it settles reads afresh. */
function sharedRead<T>(read: () => Promise<T>): () => Promise<T> {
  let inFlight: Promise<T> | undefined;
  return () => (inFlight ??= read().finally(() => (inFlight = undefined)));
}
