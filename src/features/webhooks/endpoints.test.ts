/**
 * Webhook endpoints and events through the API, as production runs them: WEBHOOK_ALLOW_PRIVATE unset.
 * The worker resolves names with a resolver of this file's (never the real DNS).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../../../test/support/testApp.js';
import { bearer, createKey, joinOrg, jsonHeaders, sessionToken, uniqueEmail } from '../../../test/support/actors.js';
import { readJson, type FieldErrorBody, type MessageErrorBody } from '../../../test/support/http.js';
import { withTransaction } from '../../db/pool.js';
import { markEventsDispatched } from './events.repository.js';
import { emitEvent } from './emitEvent.js';
import type { Resolver } from './sender.js';
import { customerFactory } from '../../../test/support/customers.js';
import { insertOrg, insertUser, sessionOf, type FactoryUser } from '../../../test/support/factories.js';
import { pingOnce } from '../../../test/support/webhookDelivery.js';

const NAMES: Record<string, string[]> = {
  'hooks.example.test': ['10.0.0.1'],
  'mixed.example.test': ['93.184.215.14', '127.0.0.1'],
};
const resolver: Resolver = (hostname) => Promise.resolve((NAMES[hostname] ?? []).map((address) => ({ address, family: address.includes(':') ? 6 : 4 })));

let app: TestApp;
let ownerUser: FactoryUser;
let owner: string;
let orgId: string;

interface Endpoint {
  id: string;
  url: string;
  events: string[];
  enabled: boolean;
  description: string | null;
  livemode: boolean;
  secret?: string;
}

beforeAll(async () => {
  app = await startTestApp({ worker: true, outside: { webhookResolver: resolver } });
  // Dozens of writes a second from one session, as an integration setting up its hooks does: its
  // organisation is on the plan whose limits allow that, set before the first request (the limiter
  // caches plans for a minute: src/http/rateLimit.ts).
  ownerUser = await insertUser(app.deps, uniqueEmail('hook-owner'));
  orgId = (await insertOrg(app.deps, { owner: ownerUser, plan: 'enterprise' })).id;
  owner = await sessionOf(app.deps, ownerUser);
});
afterAll(async () => app?.close());

const create = (token: string, body: unknown, headers: Record<string, string> = {}) =>
  app.fetch(`/api/v1/orgs/${orgId}/webhook-endpoints`, { method: 'POST', headers: { ...jsonHeaders(token), ...headers }, body: JSON.stringify(body) });

describe('webhook endpoints', () => {
  it('creates an endpoint with a whsec_ secret shown once and stored sealed; reads never show it', async () => {
    const res = await create(owner, { url: 'https://hooks.example.com/in', events: ['operation.succeeded', 'operation.succeeded'], description: 'CI' });
    expect(res.status).toBe(201);
    const created = await readJson<Endpoint>(res);
    expect(res.headers.get('location')).toBe(`/api/v1/orgs/${orgId}/webhook-endpoints/${created.id}`);
    expect(created).toMatchObject({ url: 'https://hooks.example.com/in', events: ['operation.succeeded'], enabled: true, description: 'CI', livemode: true });
    expect(created.id).toMatch(/^we_/);
    expect(created.secret).toMatch(/^whsec_[A-Za-z0-9+/]+=*$/);
    expect(Buffer.from(created.secret!.slice(6), 'base64')).toHaveLength(32);

    const one = await readJson<Endpoint>(await app.fetch(`/api/v1/orgs/${orgId}/webhook-endpoints/${created.id}`, { headers: bearer(owner) }));
    expect(one).not.toHaveProperty('secret');
    const list = await readJson<{ data: Endpoint[] }>(await app.fetch(`/api/v1/orgs/${orgId}/webhook-endpoints`, { headers: bearer(owner) }));
    expect(list.data.map((e) => e.id)).toContain(created.id);
    expect(JSON.stringify(list)).not.toContain(created.secret!.slice(6));
    const { rows } = await app.deps.db.query<{ secrets: unknown }>('SELECT secrets FROM webhook_endpoints WHERE id = $1', [created.id]);
    expect(rows[0]!.secrets).toMatchObject({ sealed: 'aes-256-gcm' });
    expect(JSON.stringify(rows[0]!.secrets)).not.toContain(created.secret!.slice(6));
  });

  it('creates one endpoint for an Idempotency-Key, even sent six times at once, and replays it with the same secret', async () => {
    const user = await insertUser(app.deps, uniqueEmail('hook-retry'));
    const org = (await insertOrg(app.deps, { owner: user, plan: 'enterprise' })).id;
    const token = await sessionOf(app.deps, user);
    const send = () =>
      app.fetch(`/api/v1/orgs/${org}/webhook-endpoints`, {
        method: 'POST',
        headers: { ...jsonHeaders(token), 'idempotency-key': 'hook-once' },
        body: JSON.stringify({ url: 'https://hooks.example.com/once', events: ['operation.succeeded'] }),
      });
    const answers = await Promise.all(Array.from({ length: 6 }, send));
    // The first to commit is the first; each other is its replay, or 409 IN_USE while it commits.
    expect(answers.every((res) => res.status === 201 || res.status === 409)).toBe(true);
    expect(answers.filter((res) => res.status === 201 && res.headers.get('idempotent-replayed') === null)).toHaveLength(1);
    const first = await readJson<Endpoint>(answers.find((res) => res.status === 201 && res.headers.get('idempotent-replayed') === null)!);
    const replay = await send();
    expect([replay.status, replay.headers.get('idempotent-replayed'), replay.headers.get('location')]).toEqual([201, 'true', `/api/v1/orgs/${org}/webhook-endpoints/${first.id}`]);
    expect(await readJson<Endpoint>(replay)).toEqual(first);
    const list = await readJson<{ data: Endpoint[] }>(await app.fetch(`/api/v1/orgs/${org}/webhook-endpoints`, { headers: bearer(token) }));
    expect(list.data.map((e) => e.id)).toEqual([first.id]);
  });

  it('refuses (422 on body.url) http, credentials, local names and literal addresses inside a private network', async () => {
    const refused = [
      'http://hooks.example.com/',
      'https://127.0.0.1/',
      'https://127.1/',
      'https://2130706433/',
      'https://[::1]/',
      'https://[::ffff:127.0.0.1]/',
      'https://[::ffff:a00:1]/',
      'https://10.0.0.1/',
      'https://172.16.5.4/',
      'https://192.168.1.1/',
      'https://100.64.0.1/',
      'https://169.254.169.254/latest/meta-data',
      'https://[fd00::1]/',
      'https://[fe80::1]/',
      'https://0.0.0.0/',
      'https://localhost/',
      'https://localhost./',
      'https://LOCALHOST../',
      'https://api.localhost./',
      'https://0x7f.1/',
      'https://api.localhost/',
      'https://intranet/',
      'https://intranet./',
      'https://user:pass@hooks.example.com/',
      'ftp://hooks.example.com/',
      'not a url',
    ];
    for (const url of refused) {
      const res = await create(owner, { url, events: ['*'] });
      expect(res.status, url).toBe(422);
      const body = await readJson<FieldErrorBody>(res);
      expect(body.detail[0]!.loc, url).toEqual(['body', 'url']);
    }
    // A PATCH is checked the same way.
    const ok = await readJson<Endpoint>(await create(owner, { url: 'https://8.8.8.8/hooks', events: ['*'] }));
    const patched = await app.fetch(`/api/v1/orgs/${orgId}/webhook-endpoints/${ok.id}`, { method: 'PATCH', headers: jsonHeaders(owner), body: JSON.stringify({ url: 'https://127.0.0.1/' }) });
    expect(patched.status).toBe(422);
  });

  it('a name resolving into the private network at send time is refused: a failed delivery with the reason, nothing sent, the address never named', async () => {
    for (const [host, reason, address] of [
      ['hooks.example.test', 'Refused: hooks.example.test resolves to a private address', '10.0.0.1'],
      ['mixed.example.test', 'Refused: mixed.example.test resolves to a loopback address', '127.0.0.1'],
    ] as const) {
      const endpoint = await readJson<Endpoint>(await create(owner, { url: `https://${host}/in`, events: ['*'] }));
      const { eventId, result } = await pingOnce(app, { orgId, endpointId: endpoint.id, livemode: true });
      expect(result).toEqual({ outcome: 'failed', attempts: 1 });
      const log = await readJson<{ data: { status_code: number | null; error: string; event_id: string }[] }>(
        await app.fetch(`/api/v1/orgs/${orgId}/webhook-endpoints/${endpoint.id}/deliveries`, { headers: bearer(owner) }),
      );
      expect(log.data).toEqual([expect.objectContaining({ event_id: eventId, status_code: null, error: reason })]);
      expect(JSON.stringify(log)).not.toContain(address);
    }
  });

  it('allows 16 endpoints per organisation and mode, even to concurrent creates: the 17th is 409 WEBHOOK_ENDPOINT_LIMIT', async () => {
    const limited = (await insertOrg(app.deps, { owner: ownerUser, name: 'Many hooks', plan: 'enterprise' })).id;
    const createIn = (mode: 'live' | 'test', n: number) =>
      app.fetch(`/api/v1/orgs/${limited}/webhook-endpoints`, {
        method: 'POST',
        headers: { ...jsonHeaders(owner), 'x-mode': mode },
        body: JSON.stringify({ url: `https://hooks.example.com/${mode}/${n}`, events: ['*'] }),
      });
    const answers = await Promise.all(Array.from({ length: 24 }, (_, n) => createIn('live', n)));
    expect(answers.filter((res) => res.status === 201)).toHaveLength(16);
    const refused = answers.filter((res) => res.status !== 201);
    expect(refused.map((res) => res.status)).toEqual(Array(8).fill(409));
    expect(await readJson<MessageErrorBody>(refused[0]!)).toMatchObject({ code: 'WEBHOOK_ENDPOINT_LIMIT', detail: expect.stringContaining('16') });
    const list = await readJson<{ data: Endpoint[] }>(await app.fetch(`/api/v1/orgs/${limited}/webhook-endpoints?limit=100`, { headers: bearer(owner) }));
    expect(list.data).toHaveLength(16);

    // The other mode counts on its own; deleting one makes room again.
    expect((await createIn('test', 0)).status).toBe(201);
    const removed = await app.fetch(`/api/v1/orgs/${limited}/webhook-endpoints/${list.data[0]!.id}`, { method: 'DELETE', headers: bearer(owner) });
    expect(removed.status).toBe(204);
    expect((await createIn('live', 100)).status).toBe(201);
    expect((await createIn('live', 101)).status).toBe(409);
    // Declared where clients read it.
    const document = await readJson<{ paths: Record<string, { post: { responses: Record<string, { description: string }> } }> }>(await app.fetch('/api/v1/openapi.json'));
    expect(document.paths['/api/v1/orgs/{org_oid}/webhook-endpoints']!.post.responses['409']!.description).toContain('WEBHOOK_ENDPOINT_LIMIT');
  });

  it('owners and admins write, members only read; test-mode endpoints are invisible to live callers; PATCH and DELETE', async () => {
    const memberEmail = uniqueEmail('hook-member');
    await joinOrg(app, owner, orgId, memberEmail, 'member');
    const member = await sessionToken(app, memberEmail);
    const forbidden = await create(member, { url: 'https://hooks.example.com/', events: ['*'] });
    expect(forbidden.status).toBe(403);
    expect((await readJson<MessageErrorBody>(forbidden)).code).toBe('FORBIDDEN');
    expect((await app.fetch(`/api/v1/orgs/${orgId}/webhook-endpoints`, { headers: bearer(member) })).status).toBe(200);

    const testEndpoint = await readJson<Endpoint>(await create(owner, { url: 'https://hooks.example.com/test', events: ['ping'] }, { 'x-mode': 'test' }));
    expect(testEndpoint.livemode).toBe(false);
    expect((await app.fetch(`/api/v1/orgs/${orgId}/webhook-endpoints/${testEndpoint.id}`, { headers: bearer(owner) })).status).toBe(404);
    const path = `/api/v1/orgs/${orgId}/webhook-endpoints/${testEndpoint.id}`;
    const testHeaders = { ...jsonHeaders(owner), 'x-mode': 'test' };
    const patched = await app.fetch(path, { method: 'PATCH', headers: testHeaders, body: JSON.stringify({ events: ['*', 'ping'], enabled: false, description: 'off' }) });
    expect(patched.status).toBe(200);
    expect(await readJson<Endpoint>(patched)).toMatchObject({ events: ['*'], enabled: false, description: 'off' });
    expect((await app.fetch(path, { method: 'DELETE', headers: testHeaders })).status).toBe(204);
    expect((await app.fetch(path, { method: 'DELETE', headers: testHeaders })).status).toBe(404);
  });

  it('events need webhooks:read; they are listed newest first, filtered by type, and per mode', async () => {
    const key = (await createKey(app, owner, { name: 'no hooks', scopes: ['domains:read'], mode: 'live' })).key;
    const denied = await app.fetch(`/api/v1/orgs/${orgId}/events`, { headers: bearer(key) });
    expect(denied.status).toBe(403);
    expect((await readJson<MessageErrorBody>(denied)).code).toBe('INSUFFICIENT_SCOPE');

    const reader = (await createKey(app, owner, { name: 'hooks', scopes: ['webhooks:read'], mode: 'live' })).key;
    const ids: string[] = [];
    for (const type of ['operation.failed', 'operation.succeeded', 'operation.failed'] as const) {
      ids.push(
        await withTransaction(app.deps.db, async (tx) => {
          const id = await emitEvent({ db: tx, orgId, livemode: true, type, object: { id: `op_${ids.length}` } });
          await markEventsDispatched(tx, [id]);
          return id;
        }),
      );
    }
    const failed = await readJson<{ data: { id: string; type: string }[]; next_cursor: string | null }>(
      await app.fetch(`/api/v1/orgs/${orgId}/events?type=operation.failed&limit=1`, { headers: bearer(reader) }),
    );
    expect(failed.data.map((e) => e.id)).toEqual([ids[2]]);
    const next = await readJson<{ data: { id: string }[] }>(
      await app.fetch(`/api/v1/orgs/${orgId}/events?type=operation.failed&limit=1&cursor=${failed.next_cursor}`, { headers: bearer(reader) }),
    );
    expect(next.data.map((e) => e.id)).toEqual([ids[0]]);
    expect((await app.fetch(`/api/v1/orgs/${orgId}/events?type=nope`, { headers: bearer(reader) })).status).toBe(422);
    expect((await app.fetch(`/api/v1/orgs/${orgId}/events/${ids[1]}`, { headers: bearer(reader) })).status).toBe(200);
    expect((await app.fetch(`/api/v1/orgs/${orgId}/events/${ids[1]}`, { headers: { ...bearer(owner), 'x-mode': 'test' } })).status).toBe(404);
  });

  it('emits operation.failed when a registration fails', async () => {
    const customers = customerFactory(app);
    const c = await customers.customer(10_000);
    const res = await customers.register(c, { name: `nope-${Date.now().toString(36)}-fail.com`, years: 1, registrant_contact_id: c.contactId }, `fail-${Date.now()}`);
    const operation = await customers.pollUntilFinished(c, res.headers.get('location')!);
    expect(operation.status).toBe('failed');
    const failed = await readJson<{ data: { type: string; data: { object: { id: string; status: string; error: { code: string } } } }[] }>(
      await app.fetch(`/api/v1/orgs/${c.org.id}/events?type=operation.failed`, { headers: { ...bearer(c.session), 'x-mode': 'test' } }),
    );
    expect(failed.data).toEqual([expect.objectContaining({ type: 'operation.failed', data: { object: expect.objectContaining({ id: operation.id, status: 'failed', error: expect.objectContaining({ code: 'REGISTRAR_REJECTED' }) }) } })]);
  });
});
