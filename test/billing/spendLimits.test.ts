import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../support/testApp.js';
import { bearer, createKey, jsonHeaders } from '../support/actors.js';
import { customerFactory, SCOPES } from '../support/customers.js';
import { readJson, type MessageErrorBody } from '../support/http.js';

// .com costs 1299 a year in test mode (migrations/1763800002000_tld_prices.sql).
const COM = 1299;

let app: TestApp;
let f: ReturnType<typeof customerFactory>;
beforeAll(async () => {
  app = await startTestApp();
  f = customerFactory(app);
});
afterAll(async () => app?.close());

/** A session acts in live mode, or in test mode with `X-Mode: test`. */
const patchOrg = (orgId: string, token: string, body: unknown, mode: 'live' | 'test' = 'live') =>
  app.fetch(`/api/v1/orgs/${orgId}`, { method: 'PATCH', headers: { ...jsonHeaders(token), 'x-mode': mode }, body: JSON.stringify(body) });

const patchKey = (keyId: string, token: string, body: unknown) =>
  app.fetch(`/api/v1/me/api-keys/${keyId}`, { method: 'PATCH', headers: jsonHeaders(token), body: JSON.stringify(body) });

describe('monthly spending limits', () => {
  it('admits exactly 3 of 20 concurrent registrations under an organisation limit that fits 3', async () => {
    const c = await f.customer(100_000, 'enterprise');
    const set = await patchOrg(c.org.id, c.session, { monthly_spend_limit: 3 * COM + 1 }, 'test');
    expect(set.status).toBe(200);
    expect(await set.json()).toMatchObject({ id: c.org.id, monthly_spend_limit: 3 * COM + 1 });

    const stamp = Date.now();
    const answers = await Promise.all(
      Array.from({ length: 20 }, (_, i) => f.register(c, { name: `burst-${stamp}-${i}.com`, years: 1, registrant_contact_id: c.contactId }, `burst-${i}`)),
    );
    const statuses = answers.map((res) => res.status);
    expect(statuses.filter((s) => s === 202)).toHaveLength(3);
    expect(statuses.filter((s) => s === 402)).toHaveLength(17);
    const refused = await readJson<MessageErrorBody>(answers[statuses.indexOf(402)]!);
    expect(refused.code).toBe('SPEND_LIMIT_REACHED');
    expect(refused.detail).toContain("organisation's test-mode monthly spend limit of 3898");

    const balance = await readJson<Record<string, unknown>>(await app.fetch(`/api/v1/orgs/${c.org.id}/billing/balance`, { headers: bearer(c.key) }));
    expect(balance).toMatchObject({ available: 100_000 - 3 * COM, reserved: 3 * COM, spent_this_month: 3 * COM, monthly_spend_limit: 3 * COM + 1 });

    // A dry run meets the same limit; removing it lets the next registration through.
    const dry = await app.fetch(`/api/v1/orgs/${c.org.id}/domains`, {
      method: 'POST',
      headers: { ...jsonHeaders(c.key), 'dry-run': 'true' },
      body: JSON.stringify({ name: `after-${stamp}.com`, registrant_contact_id: c.contactId }),
    });
    expect(dry.status).toBe(402);
    expect((await patchOrg(c.org.id, c.session, { monthly_spend_limit: null }, 'test')).status).toBe(200);
    expect((await f.register(c, { name: `after-${stamp}.com`, years: 1, registrant_contact_id: c.contactId }, 'after')).status).toBe(202);
  });

  it('is per mode, set by owners only, and shown on the organisation', async () => {
    const c = await f.customer(0);
    expect((await patchOrg(c.org.id, c.session, { monthly_spend_limit: 500 })).status).toBe(200);
    const live = await readJson<{ monthly_spend_limit: number | null }>(await app.fetch(`/api/v1/orgs/${c.org.id}`, { headers: bearer(c.session) }));
    const test = await readJson<{ monthly_spend_limit: number | null }>(
      await app.fetch(`/api/v1/orgs/${c.org.id}`, { headers: { ...bearer(c.session), 'x-mode': 'test' } }),
    );
    expect([live.monthly_spend_limit, test.monthly_spend_limit]).toEqual([500, null]);
    const invalid = await patchOrg(c.org.id, c.session, { monthly_spend_limit: -1 });
    expect(invalid.status).toBe(422);
    const member = await createKey(app, c.session, { name: 'orgs', scopes: ['orgs:write'], mode: 'live' });
    await app.deps.db.query(`UPDATE memberships SET role = 'admin' WHERE org_id = $1`, [c.org.id]);
    const byAdmin = await patchOrg(c.org.id, member.key, { monthly_spend_limit: 1 });
    expect(byAdmin.status).toBe(403);
    expect((await readJson<MessageErrorBody>(byAdmin)).code).toBe('FORBIDDEN');
  });

  it("limits an API key's own spending, and a limited key can only make keys limited as tightly", async () => {
    const c = await f.customer(20_000, 'enterprise');
    const limited = await createKey(app, c.session, { name: 'ci', scopes: [...SCOPES, 'keys:read', 'keys:write'], mode: 'test', monthly_spend_limit: COM });
    expect(limited).toMatchObject({ monthly_spend_limit: COM });
    const asLimited = { ...c, key: limited.key };
    const stamp = Date.now();
    expect((await f.register(asLimited, { name: `k1-${stamp}.com`, years: 1, registrant_contact_id: c.contactId }, 'k1')).status).toBe(202);
    const second = await f.register(asLimited, { name: `k2-${stamp}.com`, years: 1, registrant_contact_id: c.contactId }, 'k2');
    expect(second.status).toBe(402);
    expect((await readJson<MessageErrorBody>(second)).detail).toContain(`API key ${limited.id}'s monthly spend limit of ${COM}`);
    // The org's other key is not limited by it.
    expect((await f.register(c, { name: `k3-${stamp}.com`, years: 1, registrant_contact_id: c.contactId }, 'k3')).status).toBe(202);

    const create = (body: Record<string, unknown>) =>
      app.fetch('/api/v1/me/api-keys', { method: 'POST', headers: jsonHeaders(limited.key), body: JSON.stringify({ name: 'child', scopes: ['domains:read'], ...body }) });
    expect((await create({})).status).toBe(403);
    expect((await create({ monthly_spend_limit: COM + 1 })).status).toBe(403);
    expect((await create({ monthly_spend_limit: COM - 1 })).status).toBe(201);
    // Nor can it lift its own limit; its owner's session can.
    expect((await patchKey(limited.id, limited.key, { monthly_spend_limit: null })).status).toBe(403);
    const lifted = await patchKey(limited.id, c.session, { monthly_spend_limit: 10 * COM });
    expect(lifted.status).toBe(200);
    expect(await lifted.json()).toMatchObject({ id: limited.id, monthly_spend_limit: 10 * COM });
    expect((await f.register(asLimited, { name: `k4-${stamp}.com`, years: 1, registrant_contact_id: c.contactId }, 'k4')).status).toBe(202);
  });
});
