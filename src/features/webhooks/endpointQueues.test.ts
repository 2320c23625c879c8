/**
 * Each endpoint's delivery queue (src/features/webhooks/drain.ts, endpointQueue.workflow.ts) with the
 * real worker, dispatcher, PostgreSQL and Temporal, test-mode receivers on loopback: events reach an
 * endpoint in the order they were committed; one that was down gets its backlog oldest first, paced;
 * a dead receiver holds only its own queue; a delivery of the workflow per (endpoint, event) that
 * earlier releases started finishes, and the queue does not send it again.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../../../test/support/testApp.js';
import { customerFactory } from '../../../test/support/customers.js';
import { startWebhookReceiver, type WebhookReceiver } from '../../../test/support/webhookReceiver.js';
import { createOwnDatabase, type OwnDatabase } from '../../../test/support/ownDatabase.js';
import { startEventDispatcher } from './startDispatcher.js';
import { withTransaction } from '../../db/pool.js';
import { emitEvent } from './emitEvent.js';
import { createWebhookEndpoint } from './endpoints.js';
import { markEventsDispatched } from './events.repository.js';
import { deliveryTiming, deliveryWorkflowId, endpointQueueWorkflowId } from './timing.js';
import { startWorkflow, type Workflows } from '../../workflows.js';
import { deliveriesQueuedSignal } from './webhooks.contract.js';
import { modeOf } from '../../db/modeScope.js';

let database: OwnDatabase;
let app: TestApp;
let dispatcherId: string;
const receivers: WebhookReceiver[] = [];
let customers: ReturnType<typeof customerFactory>;

/** A turn every 100 ms per organisation and host. */
const HOST_PER_MINUTE = 600;

beforeAll(async () => {
  database = await createOwnDatabase();
  app = await startTestApp({
    worker: true,
    env: {
      WEBHOOK_TEST_LOOPBACK: 'true',
      WEBHOOK_TIMEOUT: '1s',
      WEBHOOK_RETRY_INITIAL: '200ms',
      WEBHOOK_RETRY_MAX_INTERVAL: '1s',
      WEBHOOK_RETRY_FOR: '1m',
      WEBHOOK_DISABLE_AFTER: '1m',
      WEBHOOK_HOST_PER_MINUTE: String(HOST_PER_MINUTE),
      DATABASE_URL: database.url,
    },
  });
  dispatcherId = await startEventDispatcher(app.deps.temporal.client, app.deps.config);
  customers = customerFactory(app);
});

afterAll(async () => {
  await app?.deps.temporal.client.workflow.getHandle(dispatcherId).terminate('test over').catch(() => undefined);
  for (const receiver of receivers) await receiver.close();
  await app?.close();
  await database?.drop();
});

async function receiver(behaviour?: Parameters<typeof startWebhookReceiver>[0]): Promise<WebhookReceiver> {
  const started = await startWebhookReceiver(behaviour);
  receivers.push(started);
  return started;
}

async function endpointOf(orgId: string, url: string): Promise<string> {
  const service = { db: app.deps.db, payloadKeys: app.deps.payloadKeys, destinations: app.deps.config.webhooks };
  const made = await createWebhookEndpoint(service, { mode: modeOf(false), by: null, orgId, url, events: ['operation.succeeded'], description: null });
  return made.endpoint.id;
}

/** `count` events of the organisation, `perTransaction` to a commit, in order; their ids in that order. */
async function emitInOrder(orgId: string, count: number, perTransaction = 1, label = 'op'): Promise<string[]> {
  const ids: string[] = [];
  for (let i = 0; i < count; i += perTransaction) {
    await withTransaction(app.deps.db, async (tx) => {
      for (let j = i; j < Math.min(count, i + perTransaction); j += 1) {
        ids.push(await emitEvent({ db: tx, orgId, livemode: false, type: 'operation.succeeded', object: { id: `${label}_${j}` } }));
      }
    });
  }
  return ids;
}

const idsOf = (hooks: WebhookReceiver) => hooks.received.map((h) => h.headers['webhook-id']!);

describe('endpoint delivery queues', () => {
  it('an endpoint receives events in the order they were committed, those of one transaction in the order written', { timeout: 60_000 }, async () => {
    const c = await customers.customer(0);
    const hooks = await receiver();
    await endpointOf(c.org.id, hooks.url);
    const ids = [...(await emitInOrder(c.org.id, 10, 1, 'single')), ...(await emitInOrder(c.org.id, 30, 15, 'batch')), ...(await emitInOrder(c.org.id, 10, 1, 'tail'))];
    await hooks.waitForCount(ids.length, 30_000);
    expect(idsOf(hooks)).toEqual(ids);
  });

  it('an endpoint back after an outage gets its backlog oldest first, paced, each once', { timeout: 60_000 }, async () => {
    const c = await customers.customer(0);
    let down = true;
    const hooks = await receiver(() => (down ? 503 : 200));
    const endpointId = await endpointOf(c.org.id, hooks.url);
    const ids = await emitInOrder(c.org.id, 20, 1, 'outage');
    // Down: only the oldest is tried, on its back-off (200, 400, 800 ms, then every 1 s); the rest wait behind it.
    await new Promise((resolve) => setTimeout(resolve, 3_000));
    const tried = new Set(idsOf(hooks));
    expect([...tried]).toEqual([ids[0]]);
    expect(hooks.received.length).toBeGreaterThanOrEqual(3);
    const { rows } = await app.deps.db.query<{ n: number }>(`SELECT count(*)::int AS n FROM webhook_deliveries_waiting WHERE endpoint_id = $1 AND state = 'queued'`, [endpointId]);
    expect(rows[0]!.n).toBe(20);

    down = false;
    const failures = hooks.received.length;
    await hooks.waitForCount(failures + 20, 30_000);
    const after = hooks.received.slice(failures);
    expect(after.map((h) => h.headers['webhook-id'])).toEqual(ids);
    // Paced at WEBHOOK_HOST_PER_MINUTE: never four arrivals within one interval (see delivery.test.ts).
    const interval = 60_000 / HOST_PER_MINUTE;
    expect(after[19]!.at - after[0]!.at).toBeGreaterThanOrEqual(17 * interval);
    for (const [i, h] of after.slice(3).entries()) expect(h.at - after[i]!.at).toBeGreaterThanOrEqual(interval);
    await expect.poll(async () => (await app.deps.db.query(`SELECT 1 FROM webhook_deliveries_waiting WHERE endpoint_id = $1`, [endpointId])).rowCount).toBe(0);
  });

  it('a receiver that never answers delays only its own endpoint: another gets its events as they come', { timeout: 60_000 }, async () => {
    const [stuck, healthy] = [await customers.customer(0), await customers.customer(0)];
    const dead = await receiver(() => 'hang');
    const alive = await receiver();
    await endpointOf(stuck.org.id, dead.url);
    await endpointOf(healthy.org.id, alive.url);
    await emitInOrder(stuck.org.id, 50, 50, 'dead');
    await dead.waitForCount(1);
    const sentAt = new Map<string, number>();
    for (let i = 0; i < 10; i += 1) {
      const [id] = await emitInOrder(healthy.org.id, 1, 1, `alive${i}`);
      sentAt.set(id!, performance.now());
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    await alive.waitForCount(10);
    const latencies = alive.received.map((h) => h.at - sentAt.get(h.headers['webhook-id']!)!);
    // Each within a second of its commit, though the dead receiver holds 50 deliveries that each would
    // take the 1 s timeout: it is tried once per retry, its queue waiting behind the oldest.
    expect(Math.max(...latencies)).toBeLessThan(1_000);
    expect(dead.received.length).toBeLessThanOrEqual(6);
    expect(new Set(idsOf(dead)).size).toBe(1);
  });

  it('an endpoint workflow that continues as new keeps draining where it was', { timeout: 60_000 }, async () => {
    const c = await customers.customer(0);
    const hooks = await receiver((n) => (n <= 2 ? 500 : 200));
    const endpointId = await endpointOf(c.org.id, hooks.url);
    // Started here, before any dispatch, with two drains a run: the dispatcher's wakes go to it.
    const handle = await app.deps.temporal.client.workflow.signalWithStart<Workflows['deliverEndpointWebhooksWorkflow'], []>('deliverEndpointWebhooksWorkflow', {
      workflowId: endpointQueueWorkflowId(endpointId),
      taskQueue: app.deps.config.temporal.taskQueue,
      args: [{ endpointId, livemode: false, timing: deliveryTiming(app.deps.config), idleMs: 60_000, drainsPerRun: 2 }],
      signal: deliveriesQueuedSignal,
      signalArgs: [],
    });
    const ids = await emitInOrder(c.org.id, 5, 1, 'renewed');
    await hooks.waitForCount(7, 30_000);
    expect(idsOf(hooks)).toEqual([ids[0], ids[0], ...ids]);
    const firstRun = await app.deps.temporal.client.workflow.getHandle(handle.workflowId, handle.signaledRunId, { followRuns: false }).fetchHistory();
    expect(firstRun.events?.some((e) => e.workflowExecutionContinuedAsNewEventAttributes)).toBe(true);
    await handle.terminate('test over');
  });

  it('a delivery started as its own workflow before the queues finishes, and the queue does not send it again', { timeout: 60_000 }, async () => {
    const c = await customers.customer(0);
    const hooks = await receiver((n) => (n === 1 ? 500 : 200));
    const endpointId = await endpointOf(c.org.id, hooks.url);
    // What the dispatcher of an earlier release left: the event dispatched, its waiting row, its workflow.
    const eventId = await withTransaction(app.deps.db, async (tx) => {
      const id = await emitEvent({ db: tx, orgId: c.org.id, livemode: false, type: 'operation.succeeded', object: { id: 'op_in_flight' } });
      await markEventsDispatched(tx, [id]);
      await tx.query(
        `INSERT INTO webhook_deliveries_waiting (endpoint_id, event_id, org_id, livemode, gives_up_at) VALUES ($1, $2, $3, false, now() + interval '1 minute')`,
        [endpointId, id, c.org.id],
      );
      return id;
    });
    const handle = await startWorkflow(app.deps.temporal.client, 'deliverWebhookWorkflow', {
      workflowId: deliveryWorkflowId(endpointId, eventId),
      taskQueue: app.deps.config.temporal.taskQueue,
      args: [{ endpointId, eventId, livemode: false, timing: deliveryTiming(app.deps.config) }],
    });
    expect(await handle.result()).toEqual({ outcome: 'delivered', attempts: 2 });
    // A new event to the same endpoint goes through its queue, once; the old one is not sent again.
    const [later] = await emitInOrder(c.org.id, 1, 1, 'after');
    await hooks.waitFor((h) => h.headers['webhook-id'] === later);
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(idsOf(hooks)).toEqual([eventId, eventId, later]);
    expect((await app.deps.db.query(`SELECT 1 FROM webhook_deliveries_waiting WHERE endpoint_id = $1`, [endpointId])).rowCount).toBe(0);
  });
});
