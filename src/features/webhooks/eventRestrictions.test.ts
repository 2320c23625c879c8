/**
 * Events shown only as a key's restrictions allow: a key with `allowed_domains` lists, reads and
 * streams the events of its domains and those about no domain (the domain written with each event,
 * src/features/webhooks/eventDomains.ts), and its open stream ends the moment its restrictions
 * change (told over Redis, src/auth/apiKeyVerifier.ts), not at its next periodic check.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { EventSourceMessage } from 'eventsource-parser';
import { startTestApp, type TestApp } from '../../../test/support/testApp.js';
import { bearer, createKey, jsonHeaders } from '../../../test/support/actors.js';
import { forwardedFrom, readJson, simulatedClientAddress, type MessageErrorBody } from '../../../test/support/http.js';
import { dnsCustomer, insertActiveDomain, type Customer } from '../../../test/support/domains.js';
import { openEventStream } from '../../../test/support/eventStreamClient.js';
import { RECHECK_MS } from './eventStream.js';

interface EventBody {
  id: string;
  type: string;
  data: { object: { id?: string; domain?: string } };
}

let app: TestApp;
let c: Customer;
let mine: string;
let theirs: string;
const address = simulatedClientAddress();
const suffix = Math.random().toString(36).slice(2, 8);

beforeAll(async () => {
  app = await startTestApp({ env: { WEBHOOK_TEST_LOOPBACK: 'true' } });
  c = await dnsCustomer(app, 'test');
  mine = await insertActiveDomain(app, c, { name: `mine-${suffix}.net` });
  theirs = await insertActiveDomain(app, c, { name: `theirs-${suffix}.com` });
});
afterAll(async () => app?.close());

const restrictedKey = (body: Record<string, unknown>) =>
  createKey(app, c.session, { name: 'restricted', scopes: ['dns:read', 'webhooks:read'], mode: 'test', ...body });

async function addRecord(domain: string, name: string): Promise<string> {
  const res = await app.fetch(`/api/v1/orgs/${c.org.id}/domains/${domain}/records`, {
    method: 'POST',
    headers: jsonHeaders(c.key),
    body: JSON.stringify({ type: 'TXT', name, content: `restricted ${name}` }),
  });
  expect(res.status).toBe(201);
  return (await readJson<{ id: string }>(res)).id;
}

async function listed(headers: Record<string, string>): Promise<EventBody[]> {
  const res = await app.fetch(`/api/v1/orgs/${c.org.id}/events?limit=100`, { headers });
  expect(res.status).toBe(200);
  return (await readJson<{ data: EventBody[] }>(res)).data;
}

const openStream = (key: string) => openEventStream(`${app.url}/api/v1/orgs/${c.org.id}/events/stream`, forwardedFrom(address, { headers: bearer(key) }));
const deliveryAbout = (name: string) => (m: EventSourceMessage) => m.event === 'delivery' && m.data.includes(name);

async function patchKey(id: string, body: Record<string, unknown>): Promise<void> {
  const res = await app.fetch(`/api/v1/me/api-keys/${id}`, { method: 'PATCH', headers: jsonHeaders(c.session), body: JSON.stringify(body) });
  expect(res.status).toBe(200);
}

describe('events and allowed_domains', () => {
  it('lists and shows a key restricted with allowed_domains only the events of its domains, and those about no domain', async () => {
    const onMine = await addRecord(mine, 'listed');
    const onTheirs = await addRecord(theirs, 'listed');
    const endpoint = await app.fetch(`/api/v1/orgs/${c.org.id}/webhook-endpoints`, {
      method: 'POST',
      headers: { ...jsonHeaders(c.session), 'x-mode': 'test' },
      body: JSON.stringify({ url: 'http://127.0.0.1:9/hooks', events: ['*'] }),
    });
    const { id: endpointId } = await readJson<{ id: string }>(endpoint);
    const ping = await app.fetch(`/api/v1/orgs/${c.org.id}/webhook-endpoints/${endpointId}/test`, { method: 'POST', headers: { ...bearer(c.session), 'x-mode': 'test' } });
    const { id: pingId } = await readJson<{ id: string }>(ping);

    const everything = await listed({ ...bearer(c.session), 'x-mode': 'test' });
    const eventOf = (recordId: string) => everything.find((e) => e.data.object.id === recordId)!;
    expect(eventOf(onMine).data.object.domain).toBe(mine);
    expect(eventOf(onTheirs).data.object.domain).toBe(theirs);

    for (const allowed of [[mine], ['*.net']]) {
      const { key } = await restrictedKey({ allowed_domains: allowed });
      const ids = (await listed(bearer(key))).map((e) => e.id);
      expect(ids).toContain(eventOf(onMine).id);
      expect(ids).toContain(pingId);
      expect(ids).not.toContain(eventOf(onTheirs).id);
      expect((await app.fetch(`/api/v1/orgs/${c.org.id}/events/${eventOf(onMine).id}`, { headers: bearer(key) })).status).toBe(200);
      const hidden = await app.fetch(`/api/v1/orgs/${c.org.id}/events/${eventOf(onTheirs).id}`, { headers: bearer(key) });
      expect(hidden.status).toBe(404);
      expect(await readJson<MessageErrorBody>(hidden)).toMatchObject({ code: 'NOT_FOUND' });
    }
  });

  it('streams a restricted key only its domains’ events, and ends its stream at once when its allowed_domains change', async () => {
    const key = await restrictedKey({ allowed_domains: [mine] });
    const stream = await openStream(key.key);
    const openedAt = Date.now();
    await stream.next((m) => m.event === 'ready');
    await addRecord(theirs, 'streamed-theirs');
    await addRecord(mine, 'streamed-mine');
    await stream.next(deliveryAbout('streamed-mine'));
    // Oldest first: had the other domain's event been sent, it would have come before.
    expect(stream.messages.filter((m) => m.event === 'delivery').map((m) => m.data.includes('streamed-theirs'))).toEqual([false]);

    await patchKey(key.id, { allowed_domains: [mine, theirs] });
    const end = await stream.next((m) => m.event === 'end', RECHECK_MS);
    expect(JSON.parse(end.data)).toMatchObject({ code: 'KEY_RESTRICTIONS_CHANGED' });
    // Before the stream's periodic check: the change was heard of, not found later.
    expect(Date.now() - openedAt).toBeLessThan(RECHECK_MS);
    await stream.closed;
  });

  it('ends a stream whose key is given allowed_records, and such a key then streams only the domains its patterns name', async () => {
    const key = await restrictedKey({});
    const stream = await openStream(key.key);
    const openedAt = Date.now();
    await stream.next((m) => m.event === 'ready');
    await patchKey(key.id, { allowed_records: [`_acme-challenge.${mine}:TXT`] });
    const end = await stream.next((m) => m.event === 'end', RECHECK_MS);
    expect(JSON.parse(end.data)).toMatchObject({ code: 'KEY_RESTRICTIONS_CHANGED' });
    expect(Date.now() - openedAt).toBeLessThan(RECHECK_MS);
    await stream.closed;
    const again = await openStream(key.key);
    expect(again.status).toBe(200);
    await again.next((m) => m.event === 'ready');
    await addRecord(theirs, 'records-key-theirs');
    await addRecord(mine, 'records-key-mine');
    await again.next(deliveryAbout('records-key-mine'));
    expect(again.messages.filter((m) => m.event === 'delivery').map((m) => m.data.includes('records-key-theirs'))).toEqual([false]);
    again.close();
  });

  it('lists and shows a key restricted with allowed_records the events of the domains its patterns name, and those about no domain', async () => {
    const onMine = await addRecord(mine, 'records-listed');
    const onTheirs = await addRecord(theirs, 'records-listed');
    const everything = await listed({ ...bearer(c.session), 'x-mode': 'test' });
    const eventOf = (recordId: string) => everything.find((e) => e.data.object.id === recordId)!;
    const aboutNoDomain = everything.filter((e) => e.type === 'ping').map((e) => e.id);
    for (const pattern of [`_acme-challenge.${mine}:TXT`, `*.${mine}:TXT`, '_acme-challenge.*.net:TXT']) {
      const { key } = await restrictedKey({ allowed_records: [pattern] });
      const ids = (await listed(bearer(key))).map((e) => e.id);
      expect(ids, pattern).toContain(eventOf(onMine).id);
      expect(ids, pattern).not.toContain(eventOf(onTheirs).id);
      for (const id of aboutNoDomain) expect(ids, pattern).toContain(id);
      expect((await app.fetch(`/api/v1/orgs/${c.org.id}/events/${eventOf(onMine).id}`, { headers: bearer(key) })).status).toBe(200);
      expect((await app.fetch(`/api/v1/orgs/${c.org.id}/events/${eventOf(onTheirs).id}`, { headers: bearer(key) })).status).toBe(404);
    }
  });
});
