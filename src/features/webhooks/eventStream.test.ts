/**
 * `GET …/events/stream`: an organisation's events as they commit, each carried as the exact body and
 * Standard Webhooks headers an endpoint would get, signed with the reader's own stream secret; resumed
 * after Last-Event-ID; and ended once the credential no longer holds. How many may be open:
 * eventStreamLimits.test.ts.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { EventSourceMessage } from 'eventsource-parser';
import { startTestApp, type TestApp } from '../../../test/support/testApp.js';
import { bearer, jsonHeaders, uniqueEmail } from '../../../test/support/actors.js';
import { forwardedFrom, readJson, simulatedClientAddress } from '../../../test/support/http.js';
import { insertKey, insertOrg, insertUser, sessionOf, type FactoryUser } from '../../../test/support/factories.js';
import { insertActiveDomain } from '../../../test/support/domains.js';
import { openEventStream, type OpenEventStream } from '../../../test/support/eventStreamClient.js';
import { verifyWebhook } from '../../../client/src/index.js';

let app: TestApp;
let owner: FactoryUser;
let org: { id: string };
let key: { id: string; key: string };
let records: string;
const address = simulatedClientAddress();

interface Delivery {
  event_id: string;
  type: string;
  headers: Record<string, string>;
  body: string;
}

beforeAll(async () => {
  app = await startTestApp();
  owner = await insertUser(app.deps, uniqueEmail('stream'));
  org = await insertOrg(app.deps, { owner, plan: 'enterprise' });
  key = await insertKey(app.deps, { user: owner, scopes: ['dns:read', 'dns:write', 'webhooks:read'], mode: 'test', name: 'listener' });
  records = `/api/v1/orgs/${org.id}/domains/${await insertActiveDomain(app, { org, livemode: false })}/records`;
});
afterAll(async () => app?.close());

const open = (token: string, query = '', headers: Record<string, string> = {}) =>
  openEventStream(`${app.url}/api/v1/orgs/${org.id}/events/stream${query}`, forwardedFrom(address, { headers: { ...bearer(token), ...headers } }));

async function addRecord(name: string): Promise<string> {
  const res = await app.fetch(records, { method: 'POST', headers: jsonHeaders(key.key), body: JSON.stringify({ type: 'TXT', name, content: `stream ${name}` }) });
  expect(res.status).toBe(201);
  return (await readJson<{ id: string }>(res)).id;
}

const deliveryOf = (message: EventSourceMessage) => JSON.parse(message.data) as Delivery;
const about = (recordName: string) => (m: EventSourceMessage) => m.event === 'delivery' && deliveryOf(m).body.includes(`"name":"${recordName}"`);

describe('the event stream', () => {
  let stream: OpenEventStream;
  afterAll(() => stream?.close());

  it('sends each event as a webhook endpoint would receive it, signed with the reader’s own stream secret', async () => {
    stream = await open(key.key);
    expect(stream.status).toBe(200);
    expect(stream.headers.get('content-type')).toBe('text/event-stream; charset=utf-8');
    expect(stream.headers.get('x-request-id')).toMatch(/^req_/);
    const ready = JSON.parse((await stream.next((m) => m.event === 'ready')).data) as { signing_secret: string; livemode: boolean; org_id: string };
    expect(ready).toMatchObject({ org_id: org.id, livemode: false, signing_secret: expect.stringMatching(/^whsec_[A-Za-z0-9+/]{43}=$/) });

    await addRecord('first');
    const message = await stream.next(about('first'));
    const delivery = deliveryOf(message);
    expect(message.id).toBe(delivery.event_id);
    expect(delivery.headers).toMatchObject({ 'content-type': 'application/json', 'webhook-id': delivery.event_id });
    // The receiver's own check: verifyWebhook with the stream's secret, on the body as it came.
    const event = await verifyWebhook(delivery.body, delivery.headers, ready.signing_secret);
    expect(event).toMatchObject({ id: delivery.event_id, type: 'dns_record.created', livemode: false, data: { object: { name: 'first' } } });
    // The body is the event as the API lists it, byte for byte.
    const listed = await app.fetch(`/api/v1/orgs/${org.id}/events/${delivery.event_id}`, { headers: bearer(key.key) });
    expect(await listed.text()).toBe(delivery.body);

    // Another stream of the same person gets the same secret; another member's is different.
    const again = await open(key.key, '?types=ping');
    expect(JSON.parse((await again.next((m) => m.event === 'ready')).data)).toMatchObject({ signing_secret: ready.signing_secret });
    again.close();
    const member = await insertUser(app.deps, uniqueEmail('member'));
    await app.deps.db.query(`INSERT INTO memberships (org_id, user_id, role) VALUES ($1, $2, 'member')`, [org.id, member.id]);
    const theirs = await open(await sessionOf(app.deps, member), '', { 'x-mode': 'test' });
    expect(JSON.parse((await theirs.next((m) => m.event === 'ready')).data).signing_secret).not.toBe(ready.signing_secret);
    theirs.close();
  });

  it('sends only the types asked for, and resumes after Last-Event-ID with what came in between', async () => {
    const deletes = await open(key.key, '?types=dns_record.deleted');
    await deletes.next((m) => m.event === 'ready');
    const id = await addRecord('second');
    const second = deliveryOf(await stream.next(about('second')));
    stream.close();
    await addRecord('while-away');
    expect((await app.fetch(`${records}/${id}`, { method: 'DELETE', headers: bearer(key.key) })).status).toBe(204);

    const deleted = deliveryOf(await deletes.next((m) => m.event === 'delivery'));
    expect(deleted.type).toBe('dns_record.deleted');
    deletes.close();

    stream = await open(key.key, '', { 'last-event-id': second.event_id });
    await stream.next((m) => m.event === 'delivery' && deliveryOf(m).type === 'dns_record.deleted');
    // Oldest first, from just after the last one the reader had.
    const resumed = stream.messages.filter((m) => m.event === 'delivery').map((m) => deliveryOf(m));
    expect(resumed.map((d) => d.type)).toEqual(['dns_record.created', 'dns_record.deleted']);
    expect(resumed[0]!.body).toContain('"name":"while-away"');
  });

  it('refuses a caller without webhooks:read, and a stream whose key is deleted ends saying why', async () => {
    const dnsOnly = await insertKey(app.deps, { user: owner, scopes: ['dns:read'], mode: 'test', name: 'no events' });
    expect((await open(dnsOnly.key)).error).toMatchObject({ code: 'INSUFFICIENT_SCOPE' });

    const doomed = await insertKey(app.deps, { user: owner, scopes: ['webhooks:read'], mode: 'test', name: 'doomed' });
    const ending = await open(doomed.key);
    await ending.next((m) => m.event === 'ready');
    const session = await sessionOf(app.deps, owner);
    expect((await app.fetch(`/api/v1/me/api-keys/${doomed.id}`, { method: 'DELETE', headers: bearer(session) })).status).toBe(204);
    const end = await ending.next((m) => m.event === 'end', 20_000);
    expect(JSON.parse(end.data)).toMatchObject({ code: 'INVALID_TOKEN' });
    await ending.closed;
  }, 30_000);
});
