/**
 * Webhooks end to end: the real api, worker, dispatcher, PostgreSQL and Temporal, test-mode receivers
 * on loopback (WEBHOOK_TEST_LOOPBACK=true, as under `npm run dev`; live endpoints stay public https
 * only) and a real SMTP sink. Durations are the configuration's,
 * run short: 1 s per attempt, back-off from 200 ms doubling to 1 s, disabled after an 8 s streak (long
 * enough that a busy machine's slow retries to a receiver that recovers do not disable it first).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Webhook } from 'standardwebhooks';
import { Worker } from '@temporalio/worker';
import { startTestApp, sharedWorkflowBundle, type TestApp } from '../../../test/support/testApp.js';
import { customerFactory } from '../../../test/support/customers.js';
import { jsonHeaders, bearer } from '../../../test/support/actors.js';
import { readJson } from '../../../test/support/http.js';
import { startSmtpSink, type SmtpSink } from '../../../test/support/smtpSink.js';
import { startWebhookReceiver, type WebhookReceiver } from '../../../test/support/webhookReceiver.js';
import { verifyWebhook, WebhookVerificationError } from '../../../client/src/index.js';
import { startEventDispatcher } from './startDispatcher.js';
import { withTransaction } from '../../db/pool.js';
import { emitEvent } from './emitEvent.js';
import { createWebhookEndpoint } from './endpoints.js';
import { encryptedDataConverter } from '../../temporal/payloadCodec.js';
import { endpointQueueWorkflowId } from './timing.js';
import { recordHistory } from '../../../test/support/histories.js';
import { createOwnDatabase, type OwnDatabase } from '../../../test/support/ownDatabase.js';
import type { Resolver } from './sender.js';
import { modeOf } from '../../db/modeScope.js';

/** The live endpoint's name resolves to loopback: a live delivery there would be refused and logged, never sent. */
const LIVE_HOOKS = 'https://live-hooks.example.test/in';
const resolver: Resolver = (hostname) => Promise.resolve(hostname === 'live-hooks.example.test' ? [{ address: '127.0.0.1', family: 4 }] : []);

let database: OwnDatabase;
let app: TestApp;
let smtp: SmtpSink;
let dispatcherId: string;
const receivers: WebhookReceiver[] = [];
let customers: ReturnType<typeof customerFactory>;

interface Endpoint {
  id: string;
  url: string;
  enabled: boolean;
  disabled_reason: string | null;
  secret: string;
  livemode: boolean;
}
interface Delivery {
  id: string;
  event_id: string;
  attempt: number;
  status_code: number | null;
  duration_ms: number;
  error: string | null;
  created_at: string;
}
interface EventBody {
  id: string;
  type: string;
  livemode: boolean;
  org_id: string;
  data: { object: { id: string; status?: string; enabled?: boolean } };
}

beforeAll(async () => {
  smtp = await startSmtpSink();
  // Its own database: a dispatcher hands every undispatched event of its database to its own task queue.
  database = await createOwnDatabase();
  app = await startTestApp({
    worker: true,
    outside: { webhookResolver: resolver },
    env: {
      WEBHOOK_TEST_LOOPBACK: 'true',
      WEBHOOK_TIMEOUT: '1s',
      WEBHOOK_RETRY_INITIAL: '200ms',
      WEBHOOK_RETRY_MAX_INTERVAL: '1s',
      WEBHOOK_RETRY_FOR: '1m',
      WEBHOOK_DISABLE_AFTER: '8s',
      // A turn every 300 ms: wide enough that a busy machine's scheduling delays (tens of ms, past
      // 100 ms with other test files running beside this one) cannot look like a turn taken early.
      WEBHOOK_HOST_PER_MINUTE: '200',
      SMTP_URL: smtp.url,
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
  await smtp?.close();
  await database?.drop();
});

async function receiver(behaviour?: Parameters<typeof startWebhookReceiver>[0]): Promise<WebhookReceiver> {
  const started = await startWebhookReceiver(behaviour);
  receivers.push(started);
  return started;
}

/** An endpoint made by the org's owner (a session), in test mode unless `live`. */
async function createEndpoint(owner: string, orgId: string, url: string, events: string[] = ['*'], live = false): Promise<Endpoint> {
  const res = await app.fetch(`/api/v1/orgs/${orgId}/webhook-endpoints`, {
    method: 'POST',
    headers: { ...jsonHeaders(owner), ...(live ? {} : { 'x-mode': 'test' }) },
    body: JSON.stringify({ url, events }),
  });
  expect(res.status).toBe(201);
  return readJson<Endpoint>(res);
}

const testMode = (token: string) => ({ ...bearer(token), 'x-mode': 'test' });
/** Test-mode attempts counted so far with this outcome, and endpoints disabled (src/metrics/registry.ts). */
async function counted(): Promise<{ attempts: (outcome: string) => number; disabled: number }> {
  const attempts = (await app.deps.metrics.webhookAttempts.get()).values;
  const disabled = (await app.deps.metrics.webhookEndpointsDisabled.get()).values;
  return {
    attempts: (outcome) => attempts.find((v) => v.metricName === 'webhook_delivery_attempt_duration_seconds_count' && v.labels.outcome === outcome && v.labels.mode === 'test')?.value ?? 0,
    disabled: disabled.find((v) => v.labels.mode === 'test')?.value ?? 0,
  };
}

async function ping(owner: string, orgId: string, endpointId: string): Promise<EventBody> {
  const res = await app.fetch(`/api/v1/orgs/${orgId}/webhook-endpoints/${endpointId}/test`, { method: 'POST', headers: testMode(owner) });
  expect(res.status).toBe(202);
  return readJson<EventBody>(res);
}

async function deliveries(owner: string, orgId: string, endpointId: string): Promise<Delivery[]> {
  const res = await app.fetch(`/api/v1/orgs/${orgId}/webhook-endpoints/${endpointId}/deliveries`, { headers: testMode(owner) });
  expect(res.status).toBe(200);
  return (await readJson<{ data: Delivery[] }>(res)).data;
}

async function pingEventIds(orgId: string): Promise<string[]> {
  const { rows } = await app.deps.db.query<{ id: string }>(`SELECT id FROM events WHERE org_id = $1 AND type = 'ping'`, [orgId]);
  return rows.map((r) => r.id);
}

async function undispatchedEventIds(orgId: string): Promise<string[]> {
  const { rows } = await app.deps.db.query<{ id: string }>('SELECT id FROM events WHERE org_id = $1 AND dispatched_at IS NULL', [orgId]);
  return rows.map((r) => r.id);
}

/** The endpoint's queued deliveries, oldest first (src/features/webhooks/deliveryQueue.repository.ts). */
async function queued(endpointId: string): Promise<string[]> {
  const { rows } = await app.deps.db.query<{ eventId: string }>(`SELECT event_id AS "eventId" FROM webhook_deliveries_waiting WHERE endpoint_id = $1 ORDER BY seq`, [endpointId]);
  return rows.map((r) => r.eventId);
}

/**
 * The endpoint's workflow, ended here if it has not ended (it waits minutes for more), recorded
 * under `name` and replayed on today's code.
 */
async function expectEndpointHistoryReplays(endpointId: string, name: string): Promise<void> {
  const workflowId = endpointQueueWorkflowId(endpointId);
  const handle = app.deps.temporal.client.workflow.getHandle(workflowId);
  if ((await handle.describe()).status.name === 'RUNNING') await handle.terminate('recorded by the test');
  await recordHistory(app, workflowId, name);
  const history = await handle.fetchHistory();
  await expect(
    Worker.runReplayHistory({ workflowBundle: sharedWorkflowBundle(), dataConverter: encryptedDataConverter(app.deps.payloadKeys) }, history, workflowId),
  ).resolves.toBeUndefined();
}

async function until<T>(read: () => Promise<T>, done: (value: T) => boolean, timeoutMs = 15_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await read();
    if (done(value) || Date.now() > deadline) return value;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

describe('webhook delivery', () => {
  it("a registration's operation.succeeded arrives signed, verifies with the library and the SDK, and only at the test-mode endpoint", async () => {
    const c = await customers.customer(10_000);
    const hooks = await receiver();
    const endpoint = await createEndpoint(c.session, c.org.id, hooks.url, ['operation.succeeded', 'operation.failed']);
    const liveEndpoint = await createEndpoint(c.session, c.org.id, LIVE_HOOKS, ['*'], true);

    const name = `hooked-${Date.now().toString(36)}.com`;
    const res = await customers.register(c, { name, years: 1, registrant_contact_id: c.contactId }, `reg-${name}`);
    expect(res.status).toBe(202);
    const operation = await readJson<{ id: string }>(res);

    const hook = await hooks.waitFor((h) => (JSON.parse(h.body) as EventBody).data.object.id === operation.id);
    const event = JSON.parse(hook.body) as EventBody;
    expect(event).toMatchObject({ type: 'operation.succeeded', livemode: false, org_id: c.org.id, data: { object: { id: operation.id, status: 'succeeded' } } });
    expect(hook.headers['webhook-id']).toBe(event.id);
    expect(hook.headers['webhook-signature']).toMatch(/^v1,[A-Za-z0-9+/=]+$/);
    expect(hook.headers['content-type']).toBe('application/json');

    expect(new Webhook(endpoint.secret).verify(hook.body, hook.headers)).toEqual(event);
    await expect(verifyWebhook(hook.body, hook.headers, endpoint.secret)).resolves.toEqual(event);
    // Altered or signed with another secret: refused by both.
    const forged = hook.body.replace('succeeded', 'failed');
    expect(() => new Webhook(endpoint.secret).verify(forged, hook.headers)).toThrow();
    await expect(verifyWebhook(forged, hook.headers, endpoint.secret)).rejects.toBeInstanceOf(WebhookVerificationError);
    await expect(verifyWebhook(hook.body, hook.headers, `whsec_${Buffer.alloc(32, 1).toString('base64')}`)).rejects.toThrow('No matching signature');

    // The events API has the same event; the live-mode endpoint got nothing of test mode.
    const listed = await readJson<{ data: EventBody[] }>(await app.fetch(`/api/v1/orgs/${c.org.id}/events?type=operation.succeeded`, { headers: testMode(c.session) }));
    expect(listed.data.map((e) => e.id)).toContain(event.id);
    const one = await app.fetch(`/api/v1/orgs/${c.org.id}/events/${event.id}`, { headers: testMode(c.session) });
    expect(JSON.parse(await one.text())).toEqual(event);
    const liveLog = await app.fetch(`/api/v1/orgs/${c.org.id}/webhook-endpoints/${liveEndpoint.id}/deliveries`, { headers: bearer(c.session) });
    expect(liveLog.status).toBe(200);
    expect((await readJson<{ data: Delivery[] }>(liveLog)).data).toEqual([]);
    // The attempt is logged once the receiver's answer is read, which may be just after the test saw the hook.
    await expect
      .poll(async () => (await deliveries(c.session, c.org.id, endpoint.id))[0], { timeout: 10_000 })
      .toMatchObject({ event_id: event.id, attempt: 1, status_code: 200, error: null });
  });

  it('a receiver answering 500 three times then 200 gets the event four times, and the log shows four attempts; the history replays', async () => {
    const c = await customers.customer(0);
    const hooks = await receiver((n) => (n <= 3 ? 500 : 200));
    const endpoint = await createEndpoint(c.session, c.org.id, hooks.url, ['operation.succeeded']);
    const before = await counted();
    const event = await ping(c.session, c.org.id, endpoint.id);

    const received = await hooks.waitForCount(4);
    expect(received.map((h) => h.headers['webhook-id'])).toEqual([event.id, event.id, event.id, event.id]);
    // Waits of 200, 400 and 800 ms between attempts (each attempt itself answers at once).
    const gaps = received.slice(1).map((h, i) => h.at - received[i]!.at);
    expect(gaps[0]).toBeGreaterThanOrEqual(180);
    expect(gaps[1]).toBeGreaterThanOrEqual(380);
    expect(gaps[2]).toBeGreaterThanOrEqual(780);

    const log = await until(() => deliveries(c.session, c.org.id, endpoint.id), (d) => d.length === 4);
    expect(log.map((d) => [d.attempt, d.status_code, d.error])).toEqual([
      [4, 200, null],
      [3, 500, 'Answered 500'],
      [2, 500, 'Answered 500'],
      [1, 500, 'Answered 500'],
    ]);

    // Operators see the three failures and the delivery (webhook_delivery_attempt_duration_seconds).
    const now = await counted();
    expect(now.attempts('failed') - before.attempts('failed')).toBe(3);
    expect(now.attempts('delivered') - before.attempts('delivered')).toBeGreaterThanOrEqual(1);
    // One workflow for the endpoint, not one per delivery; its queue is empty once the event is accepted.
    expect(await queued(endpoint.id)).toEqual([]);
    await expectEndpointHistoryReplays(endpoint.id, 'webhook-endpoint-queue-retries');

    // Retry of one delivery: sent once more, logged as attempt 5.
    const retried = await app.fetch(`/api/v1/orgs/${c.org.id}/webhook-endpoints/${endpoint.id}/deliveries/${log[3]!.id}/retry`, { method: 'POST', headers: testMode(c.session) });
    expect(retried.status).toBe(202);
    await hooks.waitForCount(5);
    const after = await until(() => deliveries(c.session, c.org.id, endpoint.id), (d) => d.length === 5);
    expect(after[0]).toMatchObject({ attempt: 5, status_code: 200, event_id: event.id });
  });

  // The 8 s streak before disabling, then up to 30 s for the mail: more than the default 30 s in all.
  it('a receiver that never answers is retried on the back-off schedule, then disabled, its owners e-mailed and webhook_endpoint.disabled emitted', { timeout: 60_000 }, async () => {
    const c = await customers.customer(0);
    const hooks = await receiver(() => 'hang');
    const watcher = await receiver();
    const endpoint = await createEndpoint(c.session, c.org.id, hooks.url, ['ping']);
    const watching = await createEndpoint(c.session, c.org.id, watcher.url, ['webhook_endpoint.disabled']);
    const before = await counted();
    const pinged = await ping(c.session, c.org.id, endpoint.id);

    const mail = await smtp.waitFor((m) => m.envelopeTo.includes(c.email) && (m.subject ?? '').includes('Webhook endpoint disabled'), 30_000);
    expect(mail.text).toContain(endpoint.id);
    expect(mail.text).toContain(hooks.url);
    // Each attempt waited its 1 s timeout, then 200, 400, 800 ms … before the next, until the streak
    // of failures (from the end of the first attempt) had lasted 8 s.
    const gaps = hooks.received.slice(1).map((h, i) => h.at - hooks.received[i]!.at);
    expect(hooks.received.length).toBeGreaterThanOrEqual(3);
    for (const [i, wait] of [200, 400, 800].slice(0, gaps.length).entries()) expect(gaps[i]).toBeGreaterThanOrEqual(1_000 + wait - 50);

    const log = await deliveries(c.session, c.org.id, endpoint.id);
    expect(log).toHaveLength(hooks.received.length);
    expect(log.every((d) => d.status_code === null && d.error === 'Timed out after 1000 ms')).toBe(true);
    const streak = Date.parse(log[0]!.created_at) - Date.parse(log[log.length - 1]!.created_at);
    expect(streak).toBeGreaterThanOrEqual(8_000 - 50);
    const shown = await readJson<Endpoint>(await app.fetch(`/api/v1/orgs/${c.org.id}/webhook-endpoints/${endpoint.id}`, { headers: testMode(c.session) }));
    expect(shown.enabled).toBe(false);
    expect(shown.disabled_reason).toContain('every delivery failed for 8 seconds');
    // What the WebhookEndpointDisabled alert reads (deploy/prometheus/alerts.yml).
    expect((await counted()).disabled - before.disabled).toBe(1);

    const disabledHook = await watcher.waitFor((h) => (JSON.parse(h.body) as EventBody).type === 'webhook_endpoint.disabled');
    expect(JSON.parse(disabledHook.body)).toMatchObject({ data: { object: { id: endpoint.id, enabled: false } } });
    expect(new Webhook(watching.secret).verify(disabledHook.body, disabledHook.headers)).toBeTruthy();
    // Nothing more goes to a disabled endpoint: the refused ping made no event, and the one delivery
    // that could send to it has ended with every attempt it made already received.
    const refused = await app.fetch(`/api/v1/orgs/${c.org.id}/webhook-endpoints/${endpoint.id}/test`, { method: 'POST', headers: testMode(c.session) });
    expect(refused.status).toBe(409);
    expect(await pingEventIds(c.org.id)).toEqual([pinged.id]);
    const ended = await app.deps.temporal.client.workflow.getHandle(endpointQueueWorkflowId(endpoint.id)).result();
    expect(ended).toEqual({ outcome: 'endpoint_disabled', sent: hooks.received.length });
    expect(await deliveries(c.session, c.org.id, endpoint.id)).toHaveLength(hooks.received.length);
    expect(await queued(endpoint.id)).toEqual([]);
    await expectEndpointHistoryReplays(endpoint.id, 'webhook-endpoint-queue-disabled');
  });

  // 16 endpoints made through the API, then 16 deliveries one turn at a time: 12 s in a cold CI run.
  it('an event fanned out to 16 endpoints on one host reaches each once, one turn at a time, and waiting for a turn is no failed attempt; the history replays', { timeout: 60_000 }, async () => {
    const c = await customers.customer(0);
    const hooks = await receiver();
    // Made as the API makes them (one session's 16 writes in a row would meet its rate limit).
    const service = { db: app.deps.db, payloadKeys: app.deps.payloadKeys, destinations: app.deps.config.webhooks };
    const endpoints: { id: string }[] = [];
    for (let n = 0; n < 16; n += 1) {
      const props = { mode: modeOf(false), by: null, orgId: c.org.id, url: `${hooks.url}/${n}`, events: ['operation.succeeded'], description: null };
      endpoints.push((await createWebhookEndpoint(service, props)).endpoint);
    }
    const eventId = await withTransaction(app.deps.db, (tx) => emitEvent({ db: tx, orgId: c.org.id, livemode: false, type: 'operation.succeeded', object: { id: 'op_fan_out' } }));

    const received = await hooks.waitForCount(16);
    expect(received.every((h) => h.headers['webhook-id'] === eventId)).toBe(true);
    expect(new Set(received.map((h) => h.path)).size).toBe(16);
    // One organisation's deliveries to one host take turns spaced at WEBHOOK_HOST_PER_MINUTE (200 here:
    // 300 ms). A send starts once its turn has come, and on a busy machine may reach the receiver more
    // than an interval later (a new connection, a stalled event loop), so two or three arrivals may
    // land close together; never four within one interval. Unpaced, all 16 land at once.
    const interval = 60_000 / app.deps.config.webhooks.hostPerMinute;
    expect(received[15]!.at - received[0]!.at).toBeGreaterThanOrEqual(14 * interval);
    const threeGaps = received.slice(3).map((h, i) => h.at - received[i]!.at);
    for (const span of threeGaps) expect(span).toBeGreaterThanOrEqual(interval);

    // Each delivered at its first attempt: the turns waited for (some on the workflow's timer, past
    // the 1 s a drain waits itself) are neither attempts nor failures.
    for (const endpoint of endpoints) {
      const log = await deliveries(c.session, c.org.id, endpoint.id);
      expect(log.map((d) => [d.attempt, d.status_code, d.error])).toEqual([[1, 200, null]]);
    }
    const { rows } = await app.deps.db.query<{ failing: number }>('SELECT count(*)::int AS failing FROM webhook_endpoints WHERE org_id = $1 AND failing_since IS NOT NULL', [c.org.id]);
    expect(rows[0]!.failing).toBe(0);

    // The last to arrive waited on its workflow's timer for a turn (a drain told `paced`).
    const last = endpoints[Number(received[15]!.path.split('/').pop())]!;
    const history = await app.deps.temporal.client.workflow.getHandle(endpointQueueWorkflowId(last.id)).fetchHistory();
    const drains = history.events?.filter((e) => e.activityTaskScheduledEventAttributes?.activityType?.name === 'drainEndpointQueue').length ?? 0;
    expect(drains).toBeGreaterThanOrEqual(2);
    expect(history.events?.some((e) => e.timerStartedEventAttributes)).toBe(true);
    await expectEndpointHistoryReplays(last.id, 'webhook-endpoint-queue-paced');
  });

  it('after a rotation both secrets verify for 24 hours; then only the new one signs', async () => {
    const c = await customers.customer(0);
    const hooks = await receiver();
    const endpoint = await createEndpoint(c.session, c.org.id, hooks.url, ['ping']);
    const rotated = await readJson<Endpoint & { secret_rotated_until: string }>(
      await app.fetch(`/api/v1/orgs/${c.org.id}/webhook-endpoints/${endpoint.id}/rotate-secret`, { method: 'POST', headers: testMode(c.session) }),
    );
    expect(rotated.secret).toMatch(/^whsec_/);
    expect(rotated.secret).not.toBe(endpoint.secret);
    const hoursLeft = (Date.parse(rotated.secret_rotated_until) - Date.now()) / 3_600_000;
    expect(hoursLeft).toBeGreaterThan(23.9);
    expect(hoursLeft).toBeLessThanOrEqual(24);

    const first = await ping(c.session, c.org.id, endpoint.id);
    const during = await hooks.waitFor((h) => h.headers['webhook-id'] === first.id);
    expect(during.headers['webhook-signature']!.split(' ')).toHaveLength(2);
    expect(new Webhook(endpoint.secret).verify(during.body, during.headers)).toMatchObject({ id: first.id });
    expect(new Webhook(rotated.secret).verify(during.body, during.headers)).toMatchObject({ id: first.id });
    await expect(verifyWebhook(during.body, during.headers, endpoint.secret)).resolves.toMatchObject({ id: first.id });
    await expect(verifyWebhook(during.body, during.headers, rotated.secret)).resolves.toMatchObject({ id: first.id });

    // The 24 hours are over.
    await app.deps.db.query(`UPDATE webhook_endpoints SET previous_secret_expires_at = now() - interval '1 second' WHERE id = $1`, [endpoint.id]);
    const second = await ping(c.session, c.org.id, endpoint.id);
    const later = await hooks.waitFor((h) => h.headers['webhook-id'] === second.id);
    expect(later.headers['webhook-signature']!.split(' ')).toHaveLength(1);
    expect(() => new Webhook(endpoint.secret).verify(later.body, later.headers)).toThrow();
    expect(new Webhook(rotated.secret).verify(later.body, later.headers)).toMatchObject({ id: second.id });
  });

  it('an event from a rolled-back change is never sent', async () => {
    const c = await customers.customer(0);
    const hooks = await receiver();
    const endpoint = await createEndpoint(c.session, c.org.id, hooks.url, ['*']);
    let rolledBackId = '';
    await expect(
      withTransaction(app.deps.db, async (tx) => {
        rolledBackId = await emitEvent({ db: tx, orgId: c.org.id, livemode: false, type: 'operation.succeeded', object: { id: 'op_never' } });
        throw new Error('the change failed');
      }),
    ).rejects.toThrow('the change failed');
    // A committed event after it arrives; the rolled-back one never does, and never existed.
    const committed = await ping(c.session, c.org.id, endpoint.id);
    await hooks.waitFor((h) => h.headers['webhook-id'] === committed.id);
    // The outbox holds only the committed event, dispatched, and its one delivery has ended: nothing else can arrive.
    await expect.poll(() => undispatchedEventIds(c.org.id)).toEqual([]);
    expect((await app.deps.db.query<{ id: string }>('SELECT id FROM events WHERE org_id = $1', [c.org.id])).rows.map((r) => r.id)).toEqual([committed.id]);
    await expect.poll(() => queued(endpoint.id)).toEqual([]);
    expect((await deliveries(c.session, c.org.id, endpoint.id)).map((d) => d.event_id)).toEqual([committed.id]);
    expect(hooks.received.map((h) => h.headers['webhook-id'])).toEqual([committed.id]);
    expect(rolledBackId).toMatch(/^evt_/);
    const stored = await app.deps.db.query('SELECT 1 FROM events WHERE id = $1', [rolledBackId]);
    expect(stored.rowCount).toBe(0);
  });

  it('purges events older than 30 days with their attempts; the purge and dispatcher histories replay', async () => {
    const c = await customers.customer(0);
    const [old, fresh] = await withTransaction(app.deps.db, async (tx) => {
      const ids = [
        await emitEvent({ db: tx, orgId: c.org.id, livemode: false, type: 'ping', object: { id: 'we_none' } }),
        await emitEvent({ db: tx, orgId: c.org.id, livemode: false, type: 'ping', object: { id: 'we_none' } }),
      ];
      await tx.query(`UPDATE events SET created_at = now() - interval '31 days' WHERE id = $1`, [ids[0]]);
      return ids;
    });
    const workflowId = `events-purge-test-${c.org.id}`;
    const result = await app.deps.temporal.client.workflow.execute('purgeEventsWorkflow', { workflowId, taskQueue: app.deps.config.temporal.taskQueue, args: [] });
    expect((result as { purged: number }).purged).toBeGreaterThanOrEqual(1);
    const left = await app.deps.db.query<{ id: string }>('SELECT id FROM events WHERE id = ANY($1)', [[old, fresh]]);
    expect(left.rows.map((r) => r.id)).toEqual([fresh]);

    await recordHistory(app, workflowId, 'purge-events');
    // The dispatcher never ends by itself: stopped here (the last test) to record its run.
    await app.deps.temporal.client.workflow.getHandle(dispatcherId).terminate('recorded');
    await recordHistory(app, dispatcherId, 'event-dispatcher');
    const options = { workflowBundle: sharedWorkflowBundle(), dataConverter: encryptedDataConverter(app.deps.payloadKeys) };
    for (const id of [workflowId, dispatcherId]) {
      const history = await app.deps.temporal.client.workflow.getHandle(id).fetchHistory();
      await expect(Worker.runReplayHistory(options, history, id)).resolves.toBeUndefined();
    }
  });
});
