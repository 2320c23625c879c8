import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../../../test/support/testApp.js';
import { bearer, jsonHeaders } from '../../../test/support/actors.js';
import { customerFactory } from '../../../test/support/customers.js';
import { readJson, type MessageErrorBody } from '../../../test/support/http.js';

let app: TestApp;
let f: ReturnType<typeof customerFactory>;
beforeAll(async () => {
  app = await startTestApp({ worker: true });
  f = customerFactory(app);
});
afterAll(async () => app?.close());

/** A fresh active test-mode domain; `testSuffix` (e.g. `-locked`) picks a synthetic registrar path. */
async function activeDomain(label: string, testSuffix = '') {
  const c = await f.customer(5_000);
  const name = `${label}-${Date.now()}${testSuffix}.com`;
  const res = await f.register(c, { name, years: 1, registrant_contact_id: c.contactId }, `reg-${name}`);
  expect((await f.pollUntilFinished(c, res.headers.get('location')!)).status).toBe('succeeded');
  return { c, name, url: `/api/v1/orgs/${c.org.id}/domains/${name}` };
}

describe('PATCH /api/v1/orgs/{org_oid}/domains/{domain}', () => {
  it('changes settings with optimistic concurrency (ETag / If-Match)', async () => {
    const { c, url } = await activeDomain('settings');
    const shown = await app.fetch(url, { headers: bearer(c.key) });
    expect(shown.headers.get('etag')).toBe('"1"');
    const patch = (body: unknown, ifMatch?: string) =>
      app.fetch(url, { method: 'PATCH', headers: { ...jsonHeaders(c.key), ...(ifMatch ? { 'if-match': ifMatch } : {}) }, body: JSON.stringify(body) });
    const changed = await patch({ auto_renew: true, nameservers: ['ns1.example.net', 'ns2.example.net'] }, '"1"');
    expect(changed.status).toBe(200);
    expect(changed.headers.get('etag')).toBe('"2"');
    expect(await changed.json()).toMatchObject({ auto_renew: true, nameservers: ['ns1.example.net', 'ns2.example.net'], version: 2 });
    const stale = await patch({ auto_renew: false }, '"1"');
    expect(stale.status).toBe(409);
    expect((await readJson<MessageErrorBody>(stale)).code).toBe('VERSION_MISMATCH');
    expect((await patch({})).status).toBe(422);
  });

  it("answers another organisation's domain with 404", async () => {
    const { url } = await activeDomain('private');
    const stranger = await f.customer(0);
    expect((await app.fetch(url.replace(/orgs\/[^/]+/, `orgs/${stranger.org.id}`), { headers: bearer(stranger.key) })).status).toBe(404);
  });
});

describe('GET /api/v1/orgs/{org_oid}/domains/{domain}', () => {
  it('finds the domain however the name is written, and answers a malformed name with 422 on path.domain', async () => {
    const { c, name, url } = await activeDomain('written');
    const orgUrl = url.slice(0, url.lastIndexOf('/'));
    const shouted = await app.fetch(`${orgUrl}/${name.toUpperCase()}.`, { headers: bearer(c.key) });
    expect(shouted.status).toBe(200);
    expect(await shouted.json()).toMatchObject({ name });
    const malformed = await app.fetch(`${orgUrl}/-bad-.com`, { headers: bearer(c.key) });
    // Schema failures, path included, are 422 located by request part (docs/api-guide.md, Conventions).
    expect(malformed.status).toBe(422);
    expect(await malformed.json()).toMatchObject({
      detail: [{ loc: ['path', 'domain'], msg: expect.stringMatching(/inner hyphens/), type: 'domain_name_invalid' }],
    });
  });
});

describe('GET …/auth-code', () => {
  it('refuses while transfer-locked (the default) and answers once unlocked', async () => {
    const { c, url } = await activeDomain('leaving');
    const locked = await app.fetch(`${url}/auth-code`, { headers: bearer(c.key) });
    expect(locked.status).toBe(409);
    expect((await readJson<MessageErrorBody>(locked)).code).toBe('DOMAIN_LOCKED');
    const unlock = await app.fetch(url, { method: 'PATCH', headers: jsonHeaders(c.key), body: '{"locked":false}' });
    expect(await unlock.json()).toMatchObject({ locked: false });
    const code = await app.fetch(`${url}/auth-code`, { headers: bearer(c.key) });
    expect(code.status).toBe(200);
    expect(await code.json()).toEqual({ auth_code: expect.stringMatching(/.{8,}/), delivery: 'returned' });
  });

  it('cannot unlock a name locked at the registry (test name -locked)', async () => {
    const { c, url } = await activeDomain('vault', '-locked');
    const unlock = await app.fetch(url, { method: 'PATCH', headers: jsonHeaders(c.key), body: '{"locked":false}' });
    expect(unlock.status).toBe(409);
    expect((await readJson<MessageErrorBody>(unlock)).code).toBe('DOMAIN_LOCKED');
    expect(await (await app.fetch(url, { headers: bearer(c.key) })).json()).toMatchObject({ locked: true, version: 1 });
  });
});
