/**
 * The outbox dispatcher's cost per batch (src/features/webhooks/dispatch.ts): the endpoints of a
 * batch's organisations are read once per mode, whatever the batch holds, and each event still
 * reaches exactly the endpoints that want it. Its own database (a dispatcher takes every undispatched
 * event) and a task queue no worker polls, so the deliveries it queues are only looked at. The outbox's
 * gauges are read before and after.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WorkflowNotFoundError } from '@temporalio/client';
import { startTestApp, type TestApp } from '../../../test/support/testApp.js';
import { customerFactory } from '../../../test/support/customers.js';
import { createOwnDatabase, type OwnDatabase } from '../../../test/support/ownDatabase.js';
import { statementsOf } from '../../../test/support/statements.js';
import { withTransaction } from '../../db/pool.js';
import { emitEvent } from './emitEvent.js';
import { createWebhookEndpoint } from './endpoints.js';
import { dispatchEvents } from './dispatch.js';
import { deliveryTiming, deliveryWorkflowId, endpointQueueWorkflowId } from './timing.js';
import { randomBase62 } from '../../ids.js';
import type { EventType } from './events.repository.js';
import { modeOf } from '../../db/modeScope.js';

let database: OwnDatabase;
let app: TestApp;
const started: string[] = [];

beforeAll(async () => {
  database = await createOwnDatabase();
  app = await startTestApp({ env: { DATABASE_URL: database.url } });
});

afterAll(async () => {
  for (const id of started) await app?.deps.temporal.client.workflow.getHandle(id).terminate('test over').catch(() => undefined);
  await app?.close();
  await database?.drop();
});

async function exists(workflowId: string): Promise<boolean> {
  try {
    await app.deps.temporal.client.workflow.getHandle(workflowId).describe();
    return true;
  } catch (err) {
    if (err instanceof WorkflowNotFoundError) return false;
    throw err;
  }
}

/** The outbox's gauges as the process's registry renders them at a scrape, read from this file's database. */
async function outboxGauges(): Promise<{ count: number | undefined; oldestAge: number | undefined }> {
  const text = await app.deps.metrics.registry.metrics();
  const value = (name: string) => {
    const line = text.split('\n').find((l) => l.startsWith(`${name} `));
    return line === undefined ? undefined : Number(line.slice(name.length + 1));
  };
  return { count: value('events_undispatched'), oldestAge: value('events_undispatched_oldest_age_seconds') };
}

describe('the outbox dispatcher, a batch at a time', () => {
  it('reads endpoints once per mode per batch and queues a delivery for each event and endpoint that wants it, and no other, in order', async () => {
    const customers = customerFactory(app);
    const [everything, records, none] = [await customers.customer(0), await customers.customer(0), await customers.customer(0)];
    const service = { db: app.deps.db, payloadKeys: app.deps.payloadKeys, destinations: app.deps.config.webhooks };
    const endpoint = async (orgId: string, events: string[]) =>
      (await createWebhookEndpoint(service, { mode: modeOf(false), by: null, orgId, url: 'https://hooks.example.com/in', events, description: null })).endpoint.id;
    const all = await endpoint(everything.org.id, ['*']);
    const created = await endpoint(records.org.id, ['dns_record.created']);

    // 120 events over two batches of 100, both modes, three organisations.
    const wanted: [endpointId: string, eventId: string][] = [];
    const eventIds: string[] = [];
    await withTransaction(app.deps.db, async (tx) => {
      const emit = async (orgId: string, type: EventType, livemode = false, object: { id: string } = { id: `op_${randomBase62(8)}` }) => {
        const id = await emitEvent({ db: tx, orgId, livemode, type, object });
        eventIds.push(id);
        return id;
      };
      for (let n = 0; n < 30; n += 1) wanted.push([all, await emit(everything.org.id, 'operation.succeeded')]);
      for (let n = 0; n < 10; n += 1) await emit(everything.org.id, 'operation.succeeded', true);
      for (let n = 0; n < 20; n += 1) wanted.push([created, await emit(records.org.id, 'dns_record.created')]);
      for (let n = 0; n < 20; n += 1) await emit(records.org.id, 'dns_record.deleted');
      for (let n = 0; n < 10; n += 1) wanted.push([created, await emit(records.org.id, 'ping', false, { id: created })]);
      for (let n = 0; n < 30; n += 1) await emit(none.org.id, 'operation.succeeded');
    });

    // What an operator's scrape shows meanwhile (deploy/prometheus/alerts.yml, WebhookOutboxStalled).
    expect(await outboxGauges()).toEqual({ count: 120, oldestAge: expect.any(Number) });

    const props = {
      db: app.deps.db,
      client: app.deps.temporal.client,
      taskQueue: `dispatch-batch-${randomBase62(8)}`,
      timing: deliveryTiming(app.deps.config),
      batch: 100,
    };
    const handled: number[] = [];
    for (let round = 0; round < 3; round += 1) {
      const sent = await statementsOf(app.deps.db, async () => {
        handled.push(await dispatchEvents(props));
      });
      // The batch read and marked, and its endpoints read once per mode: no statement per event.
      // (Counted by table: the app's pool may carry other work of its own meanwhile.)
      expect(sent.filter((text) => text.includes('FROM webhook_endpoints')).length).toBeLessThanOrEqual(2);
      const ofEvents = sent.filter((text) => /\b(FROM|UPDATE) events\b/.test(text)).length;
      expect(ofEvents).toBeGreaterThanOrEqual(1);
      expect(ofEvents).toBeLessThanOrEqual(2);
    }
    expect(handled).toEqual([100, 20, 0]);
    expect(await outboxGauges()).toEqual({ count: 0, oldestAge: 0 });

    // Every pair of endpoint and event: a queued delivery exactly where one is wanted, each endpoint's
    // in the order its events were written (one transaction: their `seq`).
    const queued = await app.deps.db.query<{ endpointId: string; eventId: string }>(
      `SELECT endpoint_id AS "endpointId", event_id AS "eventId" FROM webhook_deliveries_waiting WHERE state = 'queued' AND endpoint_id = ANY($1) ORDER BY seq`,
      [[all, created]],
    );
    for (const endpointId of [all, created]) {
      expect(queued.rows.filter((r) => r.endpointId === endpointId).map((r) => r.eventId)).toEqual(wanted.filter(([e]) => e === endpointId).map(([, eventId]) => eventId));
    }
    expect(queued.rows).toHaveLength(60);

    // One workflow per endpoint, not per delivery, woken once: its queue stays awake while it holds deliveries.
    const workflowIds = [all, created].map((id) => endpointQueueWorkflowId(id));
    started.push(...workflowIds);
    for (const id of workflowIds) expect(await exists(id), id).toBe(true);
    for (const eventId of eventIds.slice(0, 3)) expect(await exists(deliveryWorkflowId(all, eventId))).toBe(false);
    await withTransaction(app.deps.db, (tx) => emitEvent({ db: tx, orgId: everything.org.id, livemode: false, type: 'operation.succeeded', object: { id: 'op_later' } }));
    expect(await dispatchEvents(props)).toBe(1);
    for (const id of workflowIds) {
      const history = await app.deps.temporal.client.workflow.getHandle(id).fetchHistory();
      expect(history.events?.filter((e) => e.workflowExecutionSignaledEventAttributes).length, id).toBe(1);
    }
    const { rows } = await app.deps.db.query<{ n: number }>('SELECT count(*)::int AS n FROM events WHERE dispatched_at IS NULL');
    expect(rows[0]!.n).toBe(0);
  });
});
