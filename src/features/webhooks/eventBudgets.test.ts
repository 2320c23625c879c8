/**
 * The budgets of the events an organisation's requests emit (src/features/webhooks/eventBudget.ts):
 * events a minute per organisation and mode (429 `RATE_LIMITED` with Retry-After, before anything
 * changes; a batch is one event), and webhook deliveries waiting per organisation and mode (409
 * `WEBHOOK_BACKLOG_LIMIT` until endpoints accept them or are disabled). The service's own events are
 * never refused. With the real dispatcher and worker, so deliveries wait and drain for real.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { setTimeout as sleep } from 'node:timers/promises';
import { startTestApp, type TestApp } from '../../../test/support/testApp.js';
import { bearer, jsonHeaders, uniqueEmail } from '../../../test/support/actors.js';
import { readJson, type MessageErrorBody } from '../../../test/support/http.js';
import { DNS_SCOPES, insertActiveDomain, registerTestDomain, type Customer } from '../../../test/support/domains.js';
import { insertKey, insertOrg, insertUser, sessionOf } from '../../../test/support/factories.js';
import { startWebhookReceiver, type WebhookReceiver } from '../../../test/support/webhookReceiver.js';
import { startEventDispatcher } from './startDispatcher.js';
import { createOwnDatabase, type OwnDatabase } from '../../../test/support/ownDatabase.js';

const EVENTS_A_MINUTE = 4;
const WAITING = 2;

let database: OwnDatabase;
let app: TestApp;
let dispatcherId: string;
let failing: WebhookReceiver;
let accepting: WebhookReceiver;

beforeAll(async () => {
  // Its own database: a dispatcher hands every undispatched event of its database to its own task queue.
  database = await createOwnDatabase();
  app = await startTestApp({
    worker: true,
    env: {
      DATABASE_URL: database.url,
      WEBHOOK_TEST_LOOPBACK: 'true',
      WEBHOOK_ALLOW_PRIVATE: 'true',
      // A failed delivery waits for its next attempt longer than the test lasts.
      WEBHOOK_RETRY_INITIAL: '1h',
      EVENTS_PER_MINUTE_PER_ORG: String(EVENTS_A_MINUTE),
      WEBHOOK_DELIVERIES_WAITING_PER_ORG: String(WAITING),
    },
  });
  dispatcherId = await startEventDispatcher(app.deps.temporal.client, app.deps.config);
  failing = await startWebhookReceiver(() => 500);
  accepting = await startWebhookReceiver();
});

afterAll(async () => {
  await app?.deps.temporal.client.workflow.getHandle(dispatcherId).terminate('test over').catch(() => undefined);
  await failing?.close();
  await accepting?.close();
  await app?.close();
  await database?.drop();
});

/** A free-plan organisation with a test key for DNS and webhooks, and an active test-mode domain. */
async function freeCustomer(): Promise<Customer & { records: string; domain: string }> {
  const user = await insertUser(app.deps, uniqueEmail('budget'));
  const org = await insertOrg(app.deps, { owner: user });
  const key = await insertKey(app.deps, { user, scopes: [...DNS_SCOPES, 'webhooks:read', 'webhooks:write'], mode: 'test' });
  const customer: Customer = { session: await sessionOf(app.deps, user), org, keys: [key.key], key: key.key, email: user.email, livemode: false };
  const domain = await insertActiveDomain(app, customer);
  return { ...customer, domain, records: `/api/v1/orgs/${org.id}/domains/${domain}/records` };
}

const txt = (c: { key: string; records: string }, name: string) =>
  app.fetch(c.records, { method: 'POST', headers: jsonHeaders(c.key), body: JSON.stringify({ type: 'TXT', name, content: `budget ${name}` }) });

async function recordsNamed(c: { key: string; records: string }, name: string): Promise<unknown[]> {
  return (await readJson<{ data: unknown[] }>(await app.fetch(`${c.records}?name=${name}`, { headers: bearer(c.key) }))).data;
}

async function eventCount(orgId: string): Promise<number> {
  const { rows } = await app.deps.db.query<{ n: number }>('SELECT count(*)::int AS n FROM events WHERE org_id = $1', [orgId]);
  return rows[0]!.n;
}

async function endpoint(c: Customer, url: string, mode: 'test' | 'live'): Promise<string> {
  const res = await app.fetch(`/api/v1/orgs/${c.org.id}/webhook-endpoints`, {
    method: 'POST',
    headers: { ...jsonHeaders(c.session), ...(mode === 'test' ? { 'x-mode': 'test' } : {}) },
    body: JSON.stringify({ url, events: ['*'] }),
  });
  expect(res.status).toBe(201);
  return (await readJson<{ id: string }>(res)).id;
}

/**
 * The budget counts per fixed minute of the clock: start a run of requests that must fall in one
 * minute with at least `ms` of it left.
 */
async function withMinuteLeft(ms: number): Promise<void> {
  const left = 60_000 - (Date.now() % 60_000);
  if (left < ms) await sleep(left + 50);
}

describe('events a minute per organisation and mode', () => {
  it('counts a batch as one event, and refuses a request past the minute’s events 429 with Retry-After before it changes anything', async () => {
    const a = await freeCustomer();
    const b = await freeCustomer();
    await withMinuteLeft(30_000);
    const batch = await app.fetch(`${a.records}/batch`, {
      method: 'POST',
      headers: jsonHeaders(a.key),
      body: JSON.stringify({ operations: Array.from({ length: 20 }, (_, i) => ({ op: 'create', record: { type: 'TXT', name: `many${i}`, content: 'one event' } })) }),
    });
    expect(batch.status).toBe(200);
    for (let i = 1; i < EVENTS_A_MINUTE; i += 1) expect((await txt(a, `single${i}`)).status).toBe(201);
    const before = await eventCount(a.org.id);

    const refused = await txt(a, 'one-too-many');
    expect(refused.status).toBe(429);
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    expect(await readJson<MessageErrorBody>(refused)).toMatchObject({ code: 'RATE_LIMITED', detail: expect.stringContaining(`${EVENTS_A_MINUTE} events this minute`) });
    expect(await recordsNamed(a, 'one-too-many')).toEqual([]);
    expect(await eventCount(a.org.id)).toBe(before);
    // A batch, a zone import and a ping are refused alike; a dry run emits nothing and is not.
    const zone = `/api/v1/orgs/${a.org.id}/domains/${a.domain}/zone`;
    const imported = (dryRun: boolean) =>
      app.fetch(zone, { method: 'POST', headers: { ...bearer(a.key), 'content-type': 'text/dns', ...(dryRun ? { 'dry-run': 'true' } : {}) }, body: '$TTL 300\nzone TXT "x"\n' });
    expect((await imported(true)).status).toBe(200);
    expect((await imported(false)).status).toBe(429);

    // Another organisation has its own budget, and so has the same organisation's live mode.
    expect((await txt(b, 'elsewhere')).status).toBe(201);
    const live = await endpoint(a, accepting.url, 'live');
    const ping = await app.fetch(`/api/v1/orgs/${a.org.id}/webhook-endpoints/${live}/test`, { method: 'POST', headers: bearer(a.session) });
    expect(ping.status).toBe(202);
  });

  it('never refuses the service’s own events: an operation ending while the budget is spent still emits its event', async () => {
    const c = await freeCustomer();
    await withMinuteLeft(40_000);
    for (let i = 0; i < EVENTS_A_MINUTE; i += 1) expect((await txt(c, `spend${i}`)).status).toBe(201);
    expect((await txt(c, 'spent')).status).toBe(429);

    const name = await registerTestDomain(app, c);
    const listed = await readJson<{ data: { type: string; data: { object: { domain: string } } }[] }>(
      await app.fetch(`/api/v1/orgs/${c.org.id}/events?type=operation.succeeded`, { headers: bearer(c.key) }),
    );
    expect(listed.data.map((e) => e.data.object.domain)).toEqual([name]);
    // Still within the spent minute: the event was written past the budget, not after it reset.
    expect((await txt(c, 'still-spent')).status).toBe(429);
  }, 60_000);
});

describe('webhook deliveries waiting per organisation and mode', () => {
  it('refuses event-emitting writes 409 WEBHOOK_BACKLOG_LIMIT while its endpoints have that many waiting, until the failing endpoint is disabled', async () => {
    const c = await freeCustomer();
    const failingEndpoint = await endpoint(c, failing.url, 'test');
    for (let i = 0; i < WAITING; i += 1) expect((await txt(c, `waits${i}`)).status).toBe(201);
    // The oldest attempted and refused by the receiver: it waits for a retry an hour away, the rest
    // of the endpoint's queue behind it (docs/api-guide.md, Webhooks and events).
    await failing.waitForCount(1, 20_000);
    await expect.poll(async () => (await app.deps.db.query('SELECT 1 FROM webhook_deliveries_waiting WHERE org_id = $1', [c.org.id])).rowCount).toBe(WAITING);

    const refused = await txt(c, 'backlogged');
    expect(refused.status).toBe(409);
    expect(refused.headers.get('retry-after')).toBeNull();
    expect(await readJson<MessageErrorBody>(refused)).toMatchObject({ code: 'WEBHOOK_BACKLOG_LIMIT', detail: expect.stringContaining(`${WAITING} webhook deliveries`) });
    expect(await recordsNamed(c, 'backlogged')).toEqual([]);

    const disabled = await app.fetch(`/api/v1/orgs/${c.org.id}/webhook-endpoints/${failingEndpoint}`, {
      method: 'PATCH',
      headers: { ...jsonHeaders(c.session), 'x-mode': 'test' },
      body: JSON.stringify({ enabled: false }),
    });
    expect(disabled.status).toBe(200);
    expect((await txt(c, 'after-disabling')).status).toBe(201);
  });

  it('counts only deliveries not yet accepted: an endpoint that accepts them never holds the organisation back', async () => {
    const c = await freeCustomer();
    await endpoint(c, accepting.url, 'test');
    await withMinuteLeft(20_000);
    for (let i = 0; i <= WAITING; i += 1) {
      const res = await txt(c, `accepted${i}`);
      expect(res.status).toBe(201);
      const { id } = await readJson<{ id: string }>(res);
      await accepting.waitFor((h) => h.body.includes(id));
      // The attempt's row commits after the receiver has answered: wait for it before the next write.
      await expect.poll(async () => (await app.deps.db.query('SELECT 1 FROM webhook_deliveries_waiting WHERE org_id = $1', [c.org.id])).rowCount).toBe(0);
    }
  });
});
