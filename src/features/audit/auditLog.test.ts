/**
 * GET /orgs/{org_oid}/audit-log over HTTP: what people and keys did in one organisation, newest
 * first, for its owners and admins only, filtered by action and actor, a page at a time.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../../../test/support/testApp.js';
import { bearer, createKey, createOrg, joinOrg, jsonHeaders, sessionToken, uniqueEmail } from '../../../test/support/actors.js';
import { readJson, type FieldErrorBody, type MessageErrorBody } from '../../../test/support/http.js';
import { insertActiveDomain } from '../../../test/support/domains.js';
import { startSmtpSink, type SmtpSink } from '../../../test/support/smtpSink.js';
import type { AuditLogEntry } from './auditLog.presenter.js';
import { purgeAuditEventsOlderThan } from './auditLog.repository.js';

let app: TestApp;
let smtp: SmtpSink;
let alice: string;
let aliceId: string;
let bob: string;
let carol: string;
let org: { id: string };
let key: { id: string; key: string };
let readerKey: string;
let testReaderKey: string;
let domain: string;
let recordId: string;

const me = async (token: string) => readJson<{ id: string }>(await app.fetch('/api/v1/me', { headers: bearer(token) }));
const auditLog = (token: string, query = '', orgId = org.id, headers: Record<string, string> = {}) =>
  app.fetch(`/api/v1/orgs/${orgId}/audit-log${query}`, { headers: { ...bearer(token), ...headers } });
/** A session's entries of the mode it asks for: live unless `test`. */
async function entries(token: string, query = '', mode: 'live' | 'test' = 'live'): Promise<AuditLogEntry[]> {
  const res = await auditLog(token, query, org.id, mode === 'test' ? { 'x-mode': 'test' } : {});
  expect(res.status).toBe(200);
  return (await readJson<{ data: AuditLogEntry[] }>(res)).data;
}

beforeAll(async () => {
  smtp = await startSmtpSink();
  app = await startTestApp({ env: { SMTP_URL: smtp.url, MAIL_FROM: 'Domain Service <noreply@example.com>' } });
  alice = await sessionToken(app, uniqueEmail('alice'));
  aliceId = (await me(alice)).id;
  org = await createOrg(app, alice, 'Audited');
  // The set-up below makes more than ten writes a second, past the free plan's write burst.
  await app.deps.db.query(`UPDATE organizations SET plan = 'enterprise' WHERE id = $1`, [org.id]);
  const bobEmail = uniqueEmail('bob');
  await joinOrg(app, alice, org.id, bobEmail, 'admin');
  bob = await sessionToken(app, bobEmail);
  const carolEmail = uniqueEmail('carol');
  await joinOrg(app, alice, org.id, carolEmail, 'member');
  carol = await sessionToken(app, carolEmail);
  const daveEmail = uniqueEmail('dave');
  await joinOrg(app, alice, org.id, daveEmail, 'member');
  const dave = await me(await sessionToken(app, daveEmail));
  expect((await app.fetch(`/api/v1/orgs/${org.id}/members/${dave.id}`, { method: 'PATCH', headers: jsonHeaders(alice), body: '{"role":"admin"}' })).status).toBe(200);
  expect((await app.fetch(`/api/v1/orgs/${org.id}/members/${dave.id}`, { method: 'DELETE', headers: bearer(alice) })).status).toBe(204);

  // A test key edits DNS and tops up; keys belong to users, so its creation shows once it acted here.
  key = await createKey(app, alice, { name: 'ci dns', scopes: ['dns:read', 'dns:write', 'domains:read', 'billing:write'], mode: 'test' });
  readerKey = (await createKey(app, alice, { name: 'auditor', scopes: ['orgs:read'], mode: 'live' })).key;
  testReaderKey = (await createKey(app, alice, { name: 'test auditor', scopes: ['orgs:read'], mode: 'test' })).key;
  domain = await insertActiveDomain(app, { org, livemode: false });
  const created = await app.fetch(`/api/v1/orgs/${org.id}/domains/${domain}/records`, {
    method: 'POST',
    headers: jsonHeaders(key.key),
    body: JSON.stringify({ type: 'A', name: 'www', content: '192.0.2.1' }),
  });
  expect(created.status).toBe(201);
  recordId = (await readJson<{ id: string }>(created)).id;
  const topUp = await app.fetch(`/api/v1/orgs/${org.id}/billing/top-ups`, { method: 'POST', headers: jsonHeaders(key.key), body: '{"amount":1500}' });
  expect(topUp.status).toBe(201);
  const settings = await app.fetch(`/api/v1/orgs/${org.id}/domains/${domain}`, {
    method: 'PATCH',
    headers: { ...jsonHeaders(alice), 'x-mode': 'test' },
    body: JSON.stringify({ auto_renew: true, nameservers: ['ns1.example.org', 'ns2.example.org'] }),
  });
  expect(settings.status).toBe(200);
  const limit = await app.fetch(`/api/v1/orgs/${org.id}`, { method: 'PATCH', headers: jsonHeaders(alice), body: '{"monthly_spend_limit":50000}' });
  expect(limit.status).toBe(200);
  const hooks = `/api/v1/orgs/${org.id}/webhook-endpoints`;
  const made = await app.fetch(hooks, { method: 'POST', headers: jsonHeaders(alice), body: JSON.stringify({ url: 'https://hooks.example.com/audit', events: ['*'] }) });
  expect(made.status, await made.clone().text()).toBe(201);
  const endpointId = (await readJson<{ id: string }>(made)).id;
  expect((await app.fetch(`${hooks}/${endpointId}/rotate-secret`, { method: 'POST', headers: bearer(alice) })).status).toBe(200);
  expect((await app.fetch(`${hooks}/${endpointId}`, { method: 'DELETE', headers: bearer(alice) })).status).toBe(204);
});

afterAll(async () => {
  await app?.close();
  await smtp?.close();
});

describe('the audit log', () => {
  it('lists what was done in the organisation in the mode asked for, newest first, with actor, target, request id and mode', async () => {
    const live = await entries(alice, '?limit=100');
    expect(live.map((e) => e.action)).toEqual([
      'webhook_endpoint.deleted',
      'webhook_endpoint.secret_rotated',
      'webhook_endpoint.created',
      'billing.spend_limit_changed',
      'org.member_removed',
      'org.member_role_changed',
      'org.member_added',
      'org.member_invited',
      'org.member_added',
      'org.member_invited',
      'org.member_added',
      'org.member_invited',
      'org.created',
    ]);
    expect(live.every((e) => e.livemode)).toBe(true);
    const test = await entries(alice, '?limit=100', 'test');
    // One request's entries share their transaction's time, so among them the order is the ids'.
    expect(test.slice(0, 2).map((e) => e.action).sort()).toEqual(['domain.auto_renew_changed', 'domain.nameservers_changed']);
    expect(test.slice(2).map((e) => e.action)).toEqual(['billing.top_up', 'dns_record.created', 'api_key.created']);
    expect(test.every((e) => !e.livemode)).toBe(true);
    for (const list of [live, test]) {
      const times = list.map((e) => Date.parse(e.created_at));
      expect([...times].sort((a, b) => b - a)).toEqual(times);
    }

    const record = test.find((e) => e.action === 'dns_record.created')!;
    expect(record).toEqual({
      id: expect.stringMatching(/^evt_/),
      created_at: expect.any(String),
      action: 'dns_record.created',
      actor: { type: 'api_key', id: key.id },
      target: { type: 'dns_record', id: recordId, name: `www.${domain} A` },
      request_id: expect.stringMatching(/.+/),
      livemode: false,
    });
    // The key the record was made with, by its name; the auditor key never acted here, so it is not listed.
    expect(test.find((e) => e.action === 'api_key.created')).toMatchObject({
      actor: { type: 'user', id: aliceId },
      target: { type: 'api_key', id: key.id, name: 'ci dns' },
      livemode: false,
    });
    expect(live.find((e) => e.action === 'org.created')).toMatchObject({ actor: { type: 'user', id: aliceId }, target: { type: 'organization', id: org.id, name: 'Audited' }, livemode: true });
    expect(test.find((e) => e.action === 'domain.auto_renew_changed')).toMatchObject({ target: { type: 'domain', name: domain }, livemode: false });
    expect(test.find((e) => e.action === 'billing.top_up')).toMatchObject({ actor: { type: 'api_key', id: key.id }, livemode: false });
    expect(live[0]).toMatchObject({ actor: { type: 'user', id: aliceId }, target: { type: 'webhook_endpoint', name: 'https://hooks.example.com/audit' }, livemode: true });
  });

  it('shows a key the entries of its own mode only: a test key never reads live entries', async () => {
    const seen = await readJson<{ data: AuditLogEntry[] }>(await auditLog(testReaderKey, '?limit=100'));
    expect(seen.data.length).toBeGreaterThan(0);
    expect(seen.data.filter((e) => e.livemode)).toEqual([]);
    // The same as a session asking for test mode, its own creation included now that it acted here.
    expect(seen.data.map((e) => e.id)).toEqual((await entries(alice, '?limit=100', 'test')).map((e) => e.id));
    expect(seen.data.filter((e) => e.action === 'api_key.created').map((e) => e.target.name)).toEqual(['test auditor', 'ci dns']);
    // Filters and cursors stay within the mode too.
    const live = await entries(alice, '?limit=100');
    expect((await readJson<{ data: AuditLogEntry[] }>(await auditLog(testReaderKey, `?action=org.created`))).data).toEqual([]);
    expect((await readJson<{ data: AuditLogEntry[] }>(await auditLog(testReaderKey, `?actor=user:${aliceId}&limit=100`))).data.some((e) => e.livemode)).toBe(false);
    expect(live.some((e) => e.target.name === 'test auditor')).toBe(false);
  });

  it('is for owners and admins: a member is refused, a key needs orgs:read', async () => {
    expect((await entries(bob)).length).toBeGreaterThan(0);
    // Having acted here now, the reading key's own creation joins the log.
    const viaKey = await entries(readerKey, '?limit=100');
    expect(viaKey).toHaveLength(14);
    expect(viaKey.filter((e) => e.action === 'api_key.created').map((e) => e.target.name)).toEqual(['auditor']);

    const member = await auditLog(carol);
    expect(member.status).toBe(403);
    expect((await readJson<MessageErrorBody>(member)).code).toBe('FORBIDDEN');
    const unscoped = await auditLog(key.key);
    expect(unscoped.status).toBe(403);
    expect((await readJson<MessageErrorBody>(unscoped)).code).toBe('INSUFFICIENT_SCOPE');
  });

  it("never shows one organisation another's entries", async () => {
    const eve = await sessionToken(app, uniqueEmail('eve'));
    const other = await createOrg(app, eve, 'Elsewhere');
    const theirs = await auditLog(eve, '', other.id);
    expect((await readJson<{ data: AuditLogEntry[] }>(theirs)).data.map((e) => e.action)).toEqual(['org.created']);
    expect((await auditLog(eve)).status).toBe(403);
    expect((await entries(alice, '?limit=100')).some((e) => e.target.id === other.id)).toBe(false);
  });

  it('filters by action and by actor, and refuses values it does not know, naming the field', async () => {
    expect((await entries(alice, '?action=org.member_added')).map((e) => e.action)).toEqual(['org.member_added', 'org.member_added', 'org.member_added']);
    expect((await entries(alice, `?actor=api_key:${key.id}`, 'test')).map((e) => e.action)).toEqual(['billing.top_up', 'dns_record.created']);
    const byAlice = await entries(alice, `?actor=user:${aliceId}&limit=100`, 'test');
    expect(byAlice.every((e) => e.actor.type === 'user' && e.actor.id === aliceId)).toBe(true);
    expect(byAlice.map((e) => e.action)).toContain('api_key.created');

    for (const [query, field] of [
      ['?action=org.exploded', 'action'],
      ['?actor=someone', 'actor'],
      ['?actor=user:', 'actor'],
    ] as const) {
      const res = await auditLog(alice, query);
      expect(res.status).toBe(422);
      expect((await readJson<FieldErrorBody>(res)).detail.map((d) => d.loc)).toEqual([['query', field]]);
    }
  });

  it('pages through every entry once, in order', async () => {
    const all = await entries(alice, '?limit=100');
    const seen: string[] = [];
    let cursor: string | null = null;
    do {
      const res = await auditLog(alice, `?limit=4${cursor ? `&cursor=${cursor}` : ''}`);
      const page = await readJson<{ data: AuditLogEntry[]; next_cursor: string | null }>(res);
      seen.push(...page.data.map((e) => e.id));
      cursor = page.next_cursor;
    } while (cursor);
    expect(seen).toEqual(all.map((e) => e.id));
  });

  it('keeps entries one year: the purge deletes older ones only', async () => {
    const [newest, oldest] = [(await entries(alice))[0]!, (await entries(alice, '?limit=100')).at(-1)!];
    await app.deps.db.query(`UPDATE audit_events SET created_at = now() - interval '366 days' WHERE id = $1`, [oldest.id]);
    expect(await purgeAuditEventsOlderThan(app.deps.db, 365)).toBeGreaterThanOrEqual(1);
    const ids = (await entries(alice, '?limit=100')).map((e) => e.id);
    expect(ids).not.toContain(oldest.id);
    expect(ids).toContain(newest.id);
  });
});
