/**
 * `endpoints` webhook endpoints, one per organisation, and a burst of `events` events spread evenly
 * over those organisations, committed 100 to a transaction as fast as the database takes them: the
 * time from the burst's first commit to the receiver's last 200, and what the worker (dispatcher and
 * deliveries) spent on it: CPU seconds and peak RSS.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { withTransaction } from '../../src/db/pool.js';
import { emitEvent } from '../../src/features/webhooks/emitEvent.js';
import { createWebhookEndpoint } from '../../src/features/webhooks/endpoints.js';
import { insertOrg, insertUser } from '../../test/support/factories.js';
import { randomBase62 } from '../../src/ids.js';
import type { Stack } from '../lib/stack.js';
import { cpuSeconds, rssPeak } from './scaleMeasure.js';
import { modeOf } from '../../src/db/modeScope.js';

export interface BurstResult {
  delivered: number;
  lastDeliveryMs: number;
  emitMs: number;
  workerCpuSeconds: number;
  workerPeakRssMb: number;
  /** The organisations with the burst's endpoints. */
  orgIds: string[];
}

export interface BacklogResult {
  /** From the backlog's commit until the dispatcher had marked every one of its events. */
  handedOnMs: number;
  workerCpuSeconds: number;
}

export async function webhookBurst(stack: Stack, props: { endpoints: number; events: number }): Promise<BurstResult> {
  const { deps } = stack;
  let delivered = 0;
  let lastAt = 0;
  const receiver = http.createServer((req, res) => {
    req.resume();
    req.on('end', () => res.writeHead(200).end('ok', () => ((delivered += 1), (lastAt = performance.now()))));
  });
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hooks`;
  try {
    const owner = await insertUser(deps, `bench-burst-${randomBase62(6).toLowerCase()}@example.com`);
    const orgIds: string[] = [];
    for (let i = 0; i < props.endpoints; i += 1) {
      const org = await insertOrg(deps, { owner, name: `Bench burst ${i}` });
      await createWebhookEndpoint(
        { db: deps.db, payloadKeys: deps.payloadKeys, destinations: deps.config.webhooks },
        { mode: modeOf(false), by: null, orgId: org.id, url, events: ['operation.succeeded'], description: 'bench burst' },
      );
      orgIds.push(org.id);
    }
    const worker = stack.workers[0]!;
    const pid = worker.child.pid!;
    const cpuBefore = cpuSeconds(pid);
    const peak = rssPeak(pid);
    const started = performance.now();
    for (let i = 0; i < props.events; i += 100) {
      await withTransaction(deps.db, async (tx) => {
        for (let j = i; j < Math.min(i + 100, props.events); j += 1) {
          await emitEvent({ db: tx, orgId: orgIds[j % orgIds.length]!, livemode: false, type: 'operation.succeeded', object: { id: `op_burst_${j}` } });
        }
      });
    }
    const emitMs = performance.now() - started;
    const deadline = Date.now() + 20 * 60_000;
    while (delivered < props.events && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 100));
    return { delivered, lastDeliveryMs: lastAt - started, emitMs, workerCpuSeconds: cpuSeconds(pid) - cpuBefore, workerPeakRssMb: peak.stop(), orgIds };
  } finally {
    receiver.closeAllConnections();
    await new Promise((resolve) => receiver.close(resolve));
  }
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
