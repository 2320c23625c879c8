/**
 * `dns_record.created|updated|deleted` and `dns_zone.changed`: written with the change
 * (src/features/dns/recordEvents.ts), listed by GET …/events and delivered to a test-mode endpoint on
 * loopback by the real dispatcher and worker. A request that changes one record is that record's
 * event, one that changes more (a batch, a zone import) one `dns_zone.changed`; each names the
 * domain, and none is written again for a request answered again or run again.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../../../test/support/testApp.js';
import { jsonHeaders } from '../../../test/support/actors.js';
import { readJson } from '../../../test/support/http.js';
import { dnsCustomer, insertActiveDomain, type Customer } from '../../../test/support/domains.js';
import { startWebhookReceiver, type WebhookReceiver } from '../../../test/support/webhookReceiver.js';
import { startEventDispatcher } from './startDispatcher.js';
import { createOwnDatabase, type OwnDatabase } from '../../../test/support/ownDatabase.js';
import type { presentDnsRecord } from '../dns/dnsRecord.presenter.js';

type RecordBody = ReturnType<typeof presentDnsRecord>;
type EventRecord = RecordBody & { domain: string };
interface ZoneChange {
  domain: string;
  created: RecordBody[];
  updated: RecordBody[];
  deleted: RecordBody[];
  truncated: boolean;
}
interface EventBody {
  id: string;
  type: string;
  livemode: boolean;
  org_id: string;
  data: { object: EventRecord; previous?: EventRecord };
}
type ZoneEvent = Omit<EventBody, 'data'> & { data: { object: ZoneChange } };

let database: OwnDatabase;
let app: TestApp;
let dispatcherId: string;
let hooks: WebhookReceiver;
let c: Customer;
let domain: string;
let records: string;

const testMode = (token: string) => ({ ...jsonHeaders(token), 'x-mode': 'test' });

beforeAll(async () => {
  // Its own database: a dispatcher hands every undispatched event of its database to its own task queue.
  database = await createOwnDatabase();
  app = await startTestApp({ worker: true, env: { WEBHOOK_TEST_LOOPBACK: 'true', DATABASE_URL: database.url } });
  dispatcherId = await startEventDispatcher(app.deps.temporal.client, app.deps.config);
  hooks = await startWebhookReceiver();
  c = await dnsCustomer(app, 'test');
  domain = await insertActiveDomain(app, c);
  records = `/api/v1/orgs/${c.org.id}/domains/${domain}/records`;
  const res = await app.fetch(`/api/v1/orgs/${c.org.id}/webhook-endpoints`, {
    method: 'POST',
    headers: testMode(c.session),
    body: JSON.stringify({ url: hooks.url, events: ['dns_record.created', 'dns_record.updated', 'dns_record.deleted', 'dns_zone.changed'] }),
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

/** The org's events, oldest first, as GET …/events lists them. */
async function listedEvents(): Promise<EventBody[]> {
  const res = await app.fetch(`/api/v1/orgs/${c.org.id}/events?limit=100`, { headers: testMode(c.session) });
  expect(res.status).toBe(200);
  return (await readJson<{ data: EventBody[] }>(res)).data.reverse();
}

/** The org's DNS record events, oldest first. */
const recordEvents = async () => (await listedEvents()).filter((e) => e.type.startsWith('dns_record.'));

/** The org's zone events, oldest first. */
const zoneEvents = async () => (await listedEvents()).filter((e) => e.type === 'dns_zone.changed') as unknown as ZoneEvent[];

/** The record as an event shows it: with its domain's name. */
const inEvent = (record: RecordBody) => ({ ...record, domain });

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
    expect(onCreate).toMatchObject({ livemode: false, org_id: c.org.id, data: { object: inEvent(rec) } });
    expect(onCreate.data.object.domain).toBe(domain);
    expect(onCreate.data.previous).toBeUndefined();
    expect(onUpdate.data).toEqual({ object: inEvent(after), previous: inEvent(rec) });
    expect(onUpdate.data.object).toMatchObject({ content: '192.0.2.2', version: 2 });
    expect(onDelete.data).toEqual({ object: inEvent(after), previous: inEvent(after) });

    for (const event of events) {
      const hook = await delivered(event.id);
      expect(JSON.parse(hook.body)).toEqual(event);
      expect(hook.headers['webhook-id']).toBe(event.id);
    }
  });

  it('a batch that changes several records emits one dns_zone.changed naming the domain and the records, in one row', async () => {
    const seed = await readJson<RecordBody>(await send('POST', '', { type: 'TXT', name: 'batch', content: 'v=1', ttl: 300 }));
    const doomed = await readJson<RecordBody>(await send('POST', '', { type: 'TXT', name: 'batch', content: 'v=gone', ttl: 300 }));
    const zoneEventsBefore = (await zoneEvents()).length;
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
    const [a, b, updated] = [results[0]!.record!, results[1]!.record!, results[2]!.record!];

    const events = await recordEvents();
    // No record event for what the batch changed: the records' own events are their creates before it.
    expect([a, b].flatMap((r) => about(events, r.id))).toEqual([]);
    expect(about(events, seed.id).map((e) => e.type)).toEqual(['dns_record.created']);
    expect(about(events, doomed.id).map((e) => e.type)).toEqual(['dns_record.created']);
    const zone = (await zoneEvents()).slice(zoneEventsBefore);
    expect(zone).toHaveLength(1);
    expect(zone[0]).toMatchObject({ type: 'dns_zone.changed', livemode: false, org_id: c.org.id });
    expect(zone[0]!.data).toEqual({ object: { domain, created: [a, b], updated: [updated], deleted: [doomed], truncated: false } });
    const { rows } = await app.deps.db.query<{ n: number }>(`SELECT count(*)::int AS n FROM events WHERE org_id = $1 AND type = 'dns_zone.changed'`, [c.org.id]);
    expect(rows[0]!.n).toBe(zoneEventsBefore + 1);
    expect(JSON.parse((await delivered(zone[0]!.id)).body)).toEqual(zone[0]);
  });

  it('a batch of one operation emits that record’s event', async () => {
    const res = await send('POST', '/batch', { operations: [{ op: 'create', record: { type: 'A', name: 'batch-one', content: '192.0.2.12' } }] });
    expect(res.status).toBe(200);
    const record = (await readJson<{ results: { record: RecordBody }[] }>(res)).results[0]!.record;
    const events = about(await recordEvents(), record.id);
    expect(events.map((e) => e.type)).toEqual(['dns_record.created']);
    expect(events[0]!.data.object).toEqual(inEvent(record));
  });

  it('a zone import is one dns_zone.changed, its lists cut at 100 records each and marked truncated', async () => {
    const name = await insertActiveDomain(app, c);
    const lines = Array.from({ length: 120 }, (_, i) => `bulk${i} TXT "import ${i}"`);
    const res = await app.fetch(`/api/v1/orgs/${c.org.id}/domains/${name}/zone`, {
      method: 'POST',
      headers: { ...testMode(c.key), 'content-type': 'text/dns' },
      body: `$TTL 300\n${lines.join('\n')}\n`,
    });
    expect(res.status).toBe(200);
    expect((await readJson<{ create: unknown[] }>(res)).create).toHaveLength(120);
    const ofDomain = (await zoneEvents()).filter((e) => e.data.object.domain === name);
    expect(ofDomain).toHaveLength(1);
    expect(ofDomain[0]!.data.object).toMatchObject({ domain: name, updated: [], deleted: [], truncated: true });
    expect(ofDomain[0]!.data.object.created).toHaveLength(100);
    expect(ofDomain[0]!.data.object.created[0]).toMatchObject({ type: 'TXT', name: expect.stringMatching(/^bulk\d+$/) });
  });

  it('a batch run again after its answer was lost emits its zone event once', async () => {
    const key = 'zone-event-lost-answer';
    const [x, y] = await Promise.all(['again-x', 'again-y'].map(async (name) => readJson<RecordBody>(await send('POST', '', { type: 'A', name, content: '192.0.2.40' }))));
    const before = (await zoneEvents()).length;
    // Updates only: a run again applies them again (creates would be found by their derived ids instead).
    const operations = [x!, y!].map((r) => ({ op: 'update', id: r.id, changes: { ttl: 1200 } }));
    const batch = () => send('POST', '/batch', { operations }, { 'idempotency-key': key });
    expect((await batch()).status).toBe(200);
    // What a crash between the commit and the stored answer leaves: the key in flight, its lease over.
    const { rowCount } = await app.deps.db.query(
      `UPDATE idempotency_keys SET state = 'in_flight', response_status = NULL, response_headers = NULL, response_body = NULL,
              locked_until = now() - interval '1 second'
        WHERE key = $1`,
      [key],
    );
    expect(rowCount).toBe(1);
    const again = await batch();
    expect(again.status).toBe(200);
    expect(again.headers.get('idempotent-replayed')).toBeNull();
    expect((await zoneEvents()).length).toBe(before + 1);
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
