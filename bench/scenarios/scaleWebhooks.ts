/**
 * Webhook endpoints, one per organisation, all at one loopback receiver (bench/scenarios/webhookReceiver.ts),
 * and bursts of events spread evenly over those organisations, committed 100 to a transaction as fast
 * as the database takes them: the time from the burst's first commit to the receiver's last first
 * arrival, each event's commit to its first arrival, and what the worker (dispatcher and deliveries)
 * and the Temporal dev server spent on it: CPU seconds (from /proc) and peak RSS.
 */
import { withTransaction } from '../../src/db/pool.js';
import { emitEvent } from '../../src/features/webhooks/emitEvent.js';
import { createWebhookEndpoint } from '../../src/features/webhooks/endpoints.js';
import { insertOrg, insertUser } from '../../test/support/factories.js';
import { randomBase62 } from '../../src/ids.js';
import type { Stack } from '../lib/stack.js';
import { summarise } from '../lib/report.js';
import { cpuSeconds, rssPeak } from './scaleMeasure.js';
import { modeOf } from '../../src/db/modeScope.js';
import type { BurstReceiver } from './webhookReceiver.js';

export interface BurstResult {
  /** Events that reached the receiver at least once. */
  delivered: number;
  /** POSTs beyond the first of each event (at-least-once). */
  duplicates: number;
  lastDeliveryMs: number;
  emitMs: number;
  /** Each event's commit to its first arrival, ms. */
  latency: { p50: number; p99: number; max: number };
  workerCpuSeconds: number;
  /** Undefined when the bench did not start the Temporal server (TEMPORAL_ADDRESS). */
  temporalCpuSeconds: number | undefined;
  workerPeakRssMb: number;
}

export interface BacklogResult {
  /** From the backlog's commit until the dispatcher had marked every one of its events. */
  handedOnMs: number;
  workerCpuSeconds: number;
}

/** `count` endpoints at the receiver, one per new organisation, subscribed to `operation.succeeded`: their organisations. */
export async function burstEndpoints(stack: Stack, props: { count: number; receiver: BurstReceiver }): Promise<string[]> {
  const { deps } = stack;
  const owner = await insertUser(deps, `bench-burst-${randomBase62(6).toLowerCase()}@example.com`);
  const orgIds: string[] = [];
  for (let i = 0; i < props.count; i += 1) {
    const org = await insertOrg(deps, { owner, name: `Bench burst ${i}` });
    await createWebhookEndpoint(
      { db: deps.db, payloadKeys: deps.payloadKeys, destinations: deps.config.webhooks },
      { mode: modeOf(false), by: null, orgId: org.id, url: `${props.receiver.url}/${i}`, events: ['operation.succeeded'], description: 'bench burst' },
    );
    orgIds.push(org.id);
  }
  return orgIds;
}

/** Committed 100 to a transaction, spread over the organisations (`spacingMs` between transactions): each id's commit time. */
async function emitBurst(stack: Stack, props: { orgIds: string[]; events: number; label: string; perTransaction: number; spacingMs: number }): Promise<Map<string, number>> {
  const committedAt = new Map<string, number>();
  for (let i = 0; i < props.events; i += props.perTransaction) {
    const ids = await withTransaction(stack.deps.db, async (tx) => {
      const written: string[] = [];
      for (let j = i; j < Math.min(i + props.perTransaction, props.events); j += 1) {
        const orgId = props.orgIds[j % props.orgIds.length]!;
        written.push(await emitEvent({ db: tx, orgId, livemode: false, type: 'operation.succeeded', object: { id: `op_${props.label}_${j}` } }));
      }
      return written;
    });
    const at = performance.now();
    for (const id of ids) committedAt.set(id, at);
    if (props.spacingMs > 0) await new Promise((resolve) => setTimeout(resolve, props.spacingMs));
  }
  return committedAt;
}

export async function webhookBurst(
  stack: Stack,
  props: { orgIds: string[]; events: number; receiver: BurstReceiver; label: string; perTransaction?: number; spacingMs?: number },
): Promise<BurstResult> {
  const { receiver } = props;
  const pid = stack.workers[0]!.child.pid!;
  const temporalPid = stack.temporalPid;
  const cpuBefore = cpuSeconds(pid);
  const temporalBefore = temporalPid ? cpuSeconds(temporalPid) : 0;
  const postsBefore = receiver.posts();
  const peak = rssPeak(pid);
  const started = performance.now();
  const committedAt = await emitBurst(stack, { ...props, perTransaction: props.perTransaction ?? 100, spacingMs: props.spacingMs ?? 0 });
  const emitMs = performance.now() - started;
  const deadline = Date.now() + 30 * 60_000;
  const arrived = () => [...committedAt.keys()].filter((id) => receiver.firstAt.has(id)).length;
  while (arrived() < props.events && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 250));
  const firsts = [...committedAt].flatMap(([id, at]) => (receiver.firstAt.has(id) ? [receiver.firstAt.get(id)! - at] : []));
  const lastAt = Math.max(...[...committedAt.keys()].map((id) => receiver.firstAt.get(id) ?? 0));
  const workerCpuSeconds = cpuSeconds(pid) - cpuBefore;
  const temporalCpuSeconds = temporalPid ? cpuSeconds(temporalPid) - temporalBefore : undefined;
  const delivered = firsts.length;
  return {
    delivered,
    duplicates: receiver.posts() - postsBefore - delivered,
    lastDeliveryMs: lastAt - started,
    emitMs,
    latency: summarise(firsts),
    workerCpuSeconds,
    temporalCpuSeconds,
    workerPeakRssMb: peak.stop(),
  };
}

/**
 * A backlog as the dispatcher meets it after being off for a while: `events` events of the burst's
 * organisations, of a type none of their endpoints subscribes to, committed in one transaction. What
 * it costs the dispatcher to go through them, a batch at a time, with no delivery to start: the time
 * until every one is marked dispatched, and the worker's CPU.
 */
export async function dispatcherBacklog(stack: Stack, props: { orgIds: string[]; events: number }): Promise<BacklogResult> {
  const { deps } = stack;
  const type = 'dns_record.created';
  await withTransaction(deps.db, async (tx) => {
    for (let i = 0; i < props.events; i += 1) {
      await emitEvent({ db: tx, orgId: props.orgIds[i % props.orgIds.length]!, livemode: false, type, object: { id: `rec_backlog_${i}` } });
    }
  });
  const pid = stack.workers[0]!.child.pid!;
  const cpuBefore = cpuSeconds(pid);
  const committed = performance.now();
  const deadline = Date.now() + 10 * 60_000;
  for (;;) {
    const { rows } = await deps.db.query<{ n: number }>(
      'SELECT count(*)::int AS n FROM events WHERE dispatched_at IS NULL AND type = $1 AND org_id = ANY($2)',
      [type, props.orgIds],
    );
    if (rows[0]!.n === 0 || Date.now() > deadline) break;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  return { handedOnMs: performance.now() - committed, workerCpuSeconds: cpuSeconds(pid) - cpuBefore };
}
