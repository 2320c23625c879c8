import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../../../test/support/testApp.js';
import { bearer, createKey, jsonHeaders, sessionToken, uniqueEmail } from '../../../test/support/actors.js';
import { readJson, type FieldErrorBody, type MessageErrorBody } from '../../../test/support/http.js';
import { generateApiKey, hashApiKey, parseApiKey } from '../../auth/apiKeyFormat.js';
import { insertApiKey } from '../../auth/apiKeys.js';
import { newId } from '../../ids.js';
import { listAuditEventsForTarget } from '../../audit/auditEvents.js';

interface KeyList {
  data: Record<string, unknown>[];
  next_cursor: string | null;
}

const logLines: string[] = [];
let app: TestApp;
let session: string;
let ownerEmail: string;

beforeAll(async () => {
  app = await startTestApp({ env: { LOG_LEVEL: 'debug' }, logDestination: { write: (line) => logLines.push(line) } });
  ownerEmail = uniqueEmail('keys');
});
// A new session per test (same user): each session has its own rate-limit pool.
beforeEach(async () => {
  session = await sessionToken(app, ownerEmail);
});
afterAll(async () => app?.close());

const post = (token: string, body: unknown) =>
  app.fetch('/api/v1/me/api-keys', { method: 'POST', headers: jsonHeaders(token), body: JSON.stringify(body) });
const list = async (token: string, query = '') =>
  readJson<KeyList>(await app.fetch(`/api/v1/me/api-keys${query}`, { headers: bearer(token) }));

describe('POST /api/v1/me/api-keys', () => {
  it('creates a live key and returns the secret once, in the documented format', async () => {
    const res = await post(session, { name: 'CI deploys', scopes: ['dns:write', 'domains:read'] });
    expect(res.status).toBe(201);
    expect(res.headers.get('cache-control')).toBe('no-store');
    const key = await readJson<Record<string, string>>(res);
    expect(Object.keys(key).sort()).toEqual(['allowed_domains', 'allowed_ips', 'allowed_records', 'created_at', 'id', 'key', 'mode', 'monthly_spend_limit', 'name', 'prefix', 'scopes']);
    expect(key).toMatchObject({ name: 'CI deploys', scopes: ['dns:write', 'domains:read'], mode: 'live' });
    expect(key.id).toMatch(/^key_[0-9A-Za-z]{22}$/);
    expect(key.key).toMatch(/^svc_live_[0-9A-Za-z]{38}$/);
    expect(parseApiKey(key.key!)).toEqual({ mode: 'live' });
    expect(key.prefix).toBe(key.key!.slice(0, 13));
    const events = await listAuditEventsForTarget(app.deps.db, 'api_key', key.id!);
    expect(events.map((e) => e.action)).toEqual(['api_key.created']);
  });

  it('fills scopes from a preset and creates test keys on request', async () => {
    const key = await createKey(app, session, { name: 'monitor', preset: 'monitoring', mode: 'test' });
    expect(key).toMatchObject({ mode: 'test', scopes: ['domains:read', 'dns:read', 'billing:read'] });
    expect(key.key.startsWith('svc_test_')).toBe(true);
  });

  it('validates the body: unknown scopes, both or neither of scopes and preset, empty names', async () => {
    const unknownScope = await readJson<FieldErrorBody>(await post(session, { name: 'x', scopes: ['domains:delete'] }));
    expect(unknownScope.code).toBe('VALIDATION_ERROR');
    expect(unknownScope.detail.map((e) => e.loc.join('.'))).toEqual(['body.scopes.0']);
    const both = await post(session, { name: 'x', scopes: ['dns:read'], preset: 'ci' });
    expect(both.status).toBe(422);
    const neither = await readJson<FieldErrorBody>(await post(session, { name: ' ' }));
    expect(neither.detail.map((e) => e.loc.join('.')).sort()).toEqual(['body.name', 'body.scopes']);
  });

  it('lets a key create keys only with keys:write, within its own scopes and of its own mode', async () => {
    const reader = await createKey(app, session, { name: 'reader', scopes: ['keys:read', 'domains:read'] });
    const noWrite = await readJson<MessageErrorBody>(await post(reader.key, { name: 'x', scopes: ['domains:read'] }));
    expect(noWrite).toEqual({ code: 'INSUFFICIENT_SCOPE', detail: 'This API key lacks the scope keys:write' });

    const minter = await createKey(app, session, { name: 'minter', scopes: ['keys:write', 'domains:read'] });
    const wider = await readJson<MessageErrorBody>(await post(minter.key, { name: 'x', scopes: ['domains:read', 'dns:write'] }));
    expect(wider).toEqual({ code: 'INSUFFICIENT_SCOPE', detail: 'This API key lacks the scope dns:write' });
    const otherMode = await post(minter.key, { name: 'x', scopes: ['domains:read'], mode: 'test' });
    expect(otherMode.status).toBe(403);
    expect((await readJson<MessageErrorBody>(otherMode)).code).toBe('FORBIDDEN');
    const narrower = await createKey(app, minter.key, { name: 'narrower', scopes: ['domains:read'] });
    expect(narrower.mode).toBe('live');

    const testMinter = await createKey(app, session, { name: 'test minter', scopes: ['keys:write'], mode: 'test' });
    const child = await createKey(app, testMinter.key, { name: 'test child', scopes: ['keys:write'] });
    expect(child.mode).toBe('test');
    expect((await post(testMinter.key, { name: 'x', scopes: ['keys:write'], mode: 'live' })).status).toBe(403);
  });
});

describe('GET /api/v1/me/api-keys', () => {
  it('shows prefix and metadata, never the secret, and never writes the secret to the log', async () => {
    const created = await createKey(app, session, { name: 'secret-check', scopes: ['domains:read'] });
    await app.fetch('/api/v1/me', { headers: bearer(created.key) });
    const res = await app.fetch('/api/v1/me/api-keys?limit=100', { headers: bearer(session) });
    const text = await res.text();
    expect(text).not.toContain(created.key);
    expect(text).not.toContain(created.key.slice(13));
    const listed = (JSON.parse(text) as KeyList).data.find((k) => k.id === created.id)!;
    expect(Object.keys(listed).sort()).toEqual(
      ['allowed_domains', 'allowed_ips', 'allowed_records', 'created_at', 'id', 'last_used_at', 'mode', 'monthly_spend_limit', 'name', 'prefix', 'revoked_at', 'revoked_reason', 'scopes', 'status'].sort(),
    );
    expect(listed).toMatchObject({ prefix: created.prefix, status: 'active', revoked_at: null });
    expect(logLines.length).toBeGreaterThan(0);
    expect(logLines.join('\n')).not.toContain(created.key.slice(13));
  });

  it('records last use without a write per request', async () => {
    const created = await createKey(app, session, { name: 'used', scopes: ['keys:read'] });
    expect((await list(session, '?limit=100')).data.find((k) => k.id === created.id)!.last_used_at).toBeNull();
    await app.fetch('/api/v1/me', { headers: bearer(created.key) });
    await app.deps.apiKeys.flushLastUsed();
    const usedAt = (await list(session, '?limit=100')).data.find((k) => k.id === created.id)!.last_used_at as string;
    expect(Date.now() - Date.parse(usedAt)).toBeLessThan(10_000);
  });

  it('pages newest first with next_cursor, and a key sees only keys of its own mode', async () => {
    const owner = await sessionToken(app, uniqueEmail('pager'));
    const names = ['k1', 'k2', 'k3', 'k4', 'k5'];
    for (const name of names) await createKey(app, owner, { name, scopes: ['keys:read'] });
    const testKey = await createKey(app, owner, { name: 'test-reader', scopes: ['keys:read'], mode: 'test' });
    const first = await list(owner, '?limit=2');
    expect(first.data.map((k) => k.name)).toEqual(['test-reader', 'k5']);
    const second = await list(owner, `?limit=2&cursor=${first.next_cursor}`);
    const third = await list(owner, `?limit=2&cursor=${second.next_cursor}`);
    expect([...second.data, ...third.data].map((k) => k.name)).toEqual(['k4', 'k3', 'k2', 'k1']);
    expect(third.next_cursor).toBeNull();
    expect((await list(testKey.key)).data.map((k) => k.name)).toEqual(['test-reader']);
    const bad = await app.fetch('/api/v1/me/api-keys?cursor=garbage&limit=500', { headers: bearer(owner) });
    expect((await readJson<FieldErrorBody>(bad)).detail.map((e) => e.loc.join('.'))).toEqual(['query.limit']);
  });
});

describe('DELETE /api/v1/me/api-keys/{key_id}', () => {
  it("answers another user's key with 404, as if it did not exist", async () => {
    const mallory = await sessionToken(app, uniqueEmail('mallory'));
    const victim = await createKey(app, session, { name: 'victim', scopes: ['domains:read'] });
    const res = await app.fetch(`/api/v1/me/api-keys/${victim.id}`, { method: 'DELETE', headers: bearer(mallory) });
    expect(res.status).toBe(404);
    expect(await res.json()).toEqual({ code: 'NOT_FOUND', detail: 'API key not found' });
    expect((await app.fetch('/api/v1/me', { headers: bearer(victim.key) })).status).toBe(200);
  });

  it('deletes once, records it, and the list no longer shows it', async () => {
    const doomed = await createKey(app, session, { name: 'doomed', scopes: ['domains:read'] });
    const first = await app.fetch(`/api/v1/me/api-keys/${doomed.id}`, { method: 'DELETE', headers: bearer(session) });
    expect(first.status).toBe(204);
    expect(await first.text()).toBe('');
    const again = await app.fetch(`/api/v1/me/api-keys/${doomed.id}`, { method: 'DELETE', headers: bearer(session) });
    expect(again.status).toBe(404);
    expect((await list(session, '?limit=100')).data.some((k) => k.id === doomed.id)).toBe(false);
    const events = await listAuditEventsForTarget(app.deps.db, 'api_key', doomed.id);
    expect(events.map((e) => e.action)).toEqual(['api_key.created', 'api_key.deleted']);
  });
});

describe('GET /api/v1/me/api-keys/presets', () => {
  it('lists the CI, monitoring, registrar tooling and certificates scope sets', async () => {
    const body = await readJson<{ data: { id: string; scopes: string[] }[] }>(
      await app.fetch('/api/v1/me/api-keys/presets', { headers: bearer(session) }),
    );
    expect(body.data.map((p) => p.id)).toEqual(['ci', 'monitoring', 'registrar_tooling', 'certificates']);
    expect(body.data[0]!.scopes).not.toContain('billing:write');
  });
});

describe('the active-key cap', () => {
  it('refuses a 101st active key with 409 KEY_LIMIT_REACHED; deleting one makes room', async () => {
    const hoarder = await sessionToken(app, uniqueEmail('hoarder'));
    const { id: userId } = await readJson<{ id: string }>(await app.fetch('/api/v1/me', { headers: bearer(hoarder) }));
    // 99 keys straight into the table (100 requests would spend this test's write pool), then one over HTTP.
    for (let i = 0; i < 99; i++) {
      const { key, prefix } = generateApiKey('test');
      await insertApiKey(app.deps.db, {
        id: newId('key'),
        userId,
        name: `bulk ${i}`,
        scopes: ['domains:read'],
        mode: 'test',
        prefix,
        secretHash: hashApiKey(app.deps.keyHashSecret, key),
      });
    }
    const hundredth = await post(hoarder, { name: 'hundredth', scopes: ['domains:read'] });
    expect(hundredth.status).toBe(201);
    const over = await Promise.all([0, 1].map(() => post(hoarder, { name: 'one too many', scopes: ['domains:read'] })));
    for (const res of over) {
      expect(res.status).toBe(409);
      expect(await res.json()).toEqual({
        code: 'KEY_LIMIT_REACHED',
        detail: 'You already have 100 active API keys, the most one user may hold; delete one you no longer use first',
      });
    }
    const { id } = await readJson<{ id: string }>(hundredth);
    expect((await app.fetch(`/api/v1/me/api-keys/${id}`, { method: 'DELETE', headers: bearer(hoarder) })).status).toBe(204);
    expect((await post(hoarder, { name: 'replacement', scopes: ['domains:read'] })).status).toBe(201);
  });
});
