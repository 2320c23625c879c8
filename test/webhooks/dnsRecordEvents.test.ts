/**
 * `dns_record.created|updated|deleted`: written with the change (src/features/dns/applyRecordChanges.ts),
 * listed by GET …/events and delivered to a test-mode endpoint on loopback by the real dispatcher and
 * worker. One event per record changed, none for a request answered again from its Idempotency-Key.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../support/testApp.js';
import { jsonHeaders } from '../support/actors.js';
import { readJson } from '../support/http.js';
import { dnsCustomer, insertActiveDomain, type Customer } from '../support/domains.js';
import { startWebhookReceiver, type WebhookReceiver } from '../support/webhookReceiver.js';
import { startEventDispatcher } from '../../src/features/webhooks/startDispatcher.js';
import { createOwnDatabase, type OwnDatabase } from '../support/ownDatabase.js';
import type { presentDnsRecord } from '../../src/features/dns/dnsRecord.presenter.js';

type RecordBody = ReturnType<typeof presentDnsRecord>;
interface EventBody {
  id: string;
  type: string;
  livemode: boolean;
  org_id: string;
  data: { object: RecordBody; previous?: RecordBody };
}

let database: OwnDatabase;
let app: TestApp;
let dispatcherId: string;
let hooks: WebhookReceiver;
let c: Customer;
let records: string;

const testMode = (token: string) => ({ ...jsonHeaders(token), 'x-mode': 'test' });

beforeAll(async () => {
  // Its own database: a dispatcher hands every undispatched event of its database to its own task queue.
  database = await createOwnDatabase();
  app = await startTestApp({ worker: true, env: { WEBHOOK_TEST_LOOPBACK: 'true', DATABASE_URL: database.url } });
  dispatcherId = await startEventDispatcher(app.deps.temporal.client, app.deps.config);
  hooks = await startWebhookReceiver();
  c = await dnsCustomer(app, 'test');
  records = `/api/v1/orgs/${c.org.id}/domains/${await insertActiveDomain(app, c)}/records`;
  const res = await app.fetch(`/api/v1/orgs/${c.org.id}/webhook-endpoints`, {
    method: 'POST',
    headers: testMode(c.session),
    body: JSON.stringify({ url: hooks.url, events: ['dns_record.created', 'dns_record.updated', 'dns_record.deleted'] }),
  });
  expect(res.status).toBe(201);
});

afterAll(async () => {
  await app?.deps.temporal.client.workflow.getHandle(dispatcherId).terminate('test over').catch(() => undefined);
  await hooks?.close();
  await app?.close();
  await database?.drop();
});

const send = (method: string, path: string, body?: unknown, headers: Record<string, string> = {}) =>
  app.fetch(`${records}${path}`, { method, headers: { ...jsonHeaders(c.key), ...headers }, body: body === undefined ? undefined : JSON.stringify(body) });

/** The org's DNS record events, oldest first, as GET …/events lists them. */
async function recordEvents(): Promise<EventBody[]> {
  const res = await app.fetch(`/api/v1/orgs/${c.org.id}/events?limit=100`, { headers: testMode(c.session) });
  expect(res.status).toBe(200);
  return (await readJson<{ data: EventBody[] }>(res)).data.filter((e) => e.type.startsWith('dns_record.')).reverse();
}

/** Events of the given types about this record, from the list. */
const about = (events: EventBody[], id: string) => events.filter((e) => e.data.object.id === id);

const delivered = (eventId: string) => hooks.waitFor((h) => (JSON.parse(h.body) as EventBody).id === eventId);

describe('DNS record events', () => {
  it('a create, an update and a delete each emit one event with the record (and the record before), listed and delivered', async () => {
    const created = await send('POST', '', { type: 'A', name: 'www', content: '192.0.2.1', ttl: 300 });
    expect(created.status).toBe(201);
    const rec = await readJson<RecordBody>(created);
    const updated = await send('PATCH', `/${rec.id}`, { content: '192.0.2.2' });
    expect(updated.status).toBe(200);
    const after = await readJson<RecordBody>(updated);
    expect((await send('DELETE', `/${rec.id}`)).status).toBe(204);

    const events = about(await recordEvents(), rec.id);
    expect(events.map((e) => e.type)).toEqual(['dns_record.created', 'dns_record.updated', 'dns_record.deleted']);
    const [onCreate, onUpdate, onDelete] = events as [EventBody, EventBody, EventBody];
    expect(onCreate).toMatchObject({ livemode: false, org_id: c.org.id, data: { object: rec } });
    expect(onCreate.data.previous).toBeUndefined();
    expect(onUpdate.data).toEqual({ object: after, previous: rec });
    expect(onUpdate.data.object).toMatchObject({ content: '192.0.2.2', version: 2 });
    expect(onDelete.data).toEqual({ object: after, previous: after });

    for (const event of events) {
      const hook = await delivered(event.id);
      expect(JSON.parse(hook.body)).toEqual(event);
      expect(hook.headers['webhook-id']).toBe(event.id);
    }
  });

  it('a batch emits one event per record it changes', async () => {
    const seed = await readJson<RecordBody>(await send('POST', '', { type: 'TXT', name: 'batch', content: 'v=1', ttl: 300 }));
    const doomed = await readJson<RecordBody>(await send('POST', '', { type: 'TXT', name: 'batch', content: 'v=gone', ttl: 300 }));
    const res = await send('POST', '/batch', {
      operations: [
        { op: 'create', record: { type: 'A', name: 'batch-a', content: '192.0.2.10' } },
        { op: 'create', record: { type: 'A', name: 'batch-b', content: '192.0.2.11' } },
        { op: 'update', id: seed.id, changes: { content: 'v=2' } },
        { op: 'delete', id: doomed.id },
      ],
    });
    expect(res.status).toBe(200);
    const { results } = await readJson<{ results: { op: string; record?: RecordBody }[] }>(res);
    const [a, b] = [results[0]!.record!, results[1]!.record!];

    const events = await recordEvents();
    expect(about(events, a.id).map((e) => e.type)).toEqual(['dns_record.created']);
    expect(about(events, b.id).map((e) => e.type)).toEqual(['dns_record.created']);
    const onSeed = about(events, seed.id);
    expect(onSeed.map((e) => e.type)).toEqual(['dns_record.created', 'dns_record.updated']);
    expect(onSeed[1]!.data).toMatchObject({ object: { content: 'v=2', version: 2 }, previous: { content: 'v=1', version: 1 } });
    expect(about(events, doomed.id).map((e) => e.type)).toEqual(['dns_record.created', 'dns_record.deleted']);
    await delivered(onSeed[1]!.id);
  });

  it('a request answered again from its Idempotency-Key emits nothing more', async () => {
    const body = { type: 'A', name: 'replayed', content: '192.0.2.20' };
    const first = await send('POST', '', body, { 'idempotency-key': 'record-event-replay' });
    expect(first.status).toBe(201);
    const rec = await readJson<RecordBody>(first);
    const again = await send('POST', '', body, { 'idempotency-key': 'record-event-replay' });
    expect(again.status).toBe(201);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(about(await recordEvents(), rec.id).map((e) => e.type)).toEqual(['dns_record.created']);
  });

  it('an update run again after its answer was lost emits its event once', async () => {
    const rec = await readJson<RecordBody>(await send('POST', '', { type: 'A', name: 'lost', content: '192.0.2.30' }));
    const patch = () => send('PATCH', `/${rec.id}`, { ttl: 900 }, { 'idempotency-key': 'record-event-lost-answer' });
    expect((await patch()).status).toBe(200);
    // What a crash between the commit and the stored answer leaves: the key in flight, its lease over.
    const { rowCount } = await app.deps.db.query(
      `UPDATE idempotency_keys SET state = 'in_flight', response_status = NULL, response_headers = NULL, response_body = NULL,
              locked_until = now() - interval '1 second'
        WHERE key = 'record-event-lost-answer'`,
    );
    expect(rowCount).toBe(1);
    const again = await patch();
    expect(again.status).toBe(200);
    expect(again.headers.get('idempotent-replayed')).toBeNull();
    expect(about(await recordEvents(), rec.id).map((e) => e.type)).toEqual(['dns_record.created', 'dns_record.updated']);
  });
});
