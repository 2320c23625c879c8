import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../../../test/support/testApp.js';
import { bearer, createKey, createOrg, jsonHeaders } from '../../../test/support/actors.js';
import { creditBalance, insertContact } from '../../../test/support/factories.js';
import { customerFactory, SCOPES } from '../../../test/support/customers.js';
import { readJson, type MessageErrorBody } from '../../../test/support/http.js';

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

  it("shares a key's limit with every key created with it, deleted ones included: the lineage spends one budget", async () => {
    const c = await f.customer(50_000, 'enterprise');
    const scopes = [...SCOPES, 'keys:write'];
    const parent = await createKey(app, c.session, { name: 'parent', scopes, mode: 'test', monthly_spend_limit: 2 * COM });
    const stamp = Date.now();
    const registerWith = (key: string, label: string) =>
      f.register({ ...c, key }, { name: `${label}-${stamp}.com`, years: 1, registrant_contact_id: c.contactId }, label);
    const deleteKey = async (id: string) => expect((await app.fetch(`/api/v1/me/api-keys/${id}`, { method: 'DELETE', headers: bearer(parent.key) })).status).toBe(204);

    // Create a child, spend with it, delete it, repeat: only the parent's budget of two goes through.
    const statuses: number[] = [];
    for (let round = 0; round < 4; round += 1) {
      const child = await createKey(app, parent.key, { name: `child ${round}`, scopes: SCOPES, mode: 'test', monthly_spend_limit: 2 * COM });
      statuses.push((await registerWith(child.key, `child-${round}`)).status);
      await deleteKey(child.id);
    }
    expect(statuses).toEqual([202, 202, 402, 402]);
    const own = await registerWith(parent.key, 'parent');
    expect(own.status).toBe(402);
    expect((await readJson<MessageErrorBody>(own)).detail).toContain(`API key ${parent.id}'s monthly spend limit of ${2 * COM}`);

    // Through a grandchild whose own limit and its deleted parent's still have room, the root's binds.
    expect((await patchKey(parent.id, c.session, { monthly_spend_limit: 3 * COM })).status).toBe(200);
    const middle = await createKey(app, parent.key, { name: 'middle', scopes, mode: 'test', monthly_spend_limit: 2 * COM });
    const grandchild = await createKey(app, middle.key, { name: 'grandchild', scopes: SCOPES, mode: 'test', monthly_spend_limit: 2 * COM });
    await deleteKey(middle.id);
    expect((await registerWith(grandchild.key, 'grandchild-1')).status).toBe(202);
    const past = await registerWith(grandchild.key, 'grandchild-2');
    expect(past.status).toBe(402);
    expect((await readJson<MessageErrorBody>(past)).detail).toContain(`API key ${parent.id}'s monthly spend limit (shared by the keys created with it) of ${3 * COM}`);

    // A sibling's spending counts against the keys above both, not against the sibling's own limit.
    expect((await patchKey(parent.id, c.session, { monthly_spend_limit: 10 * COM })).status).toBe(200);
    const [first, second] = [
      await createKey(app, parent.key, { name: 'first', scopes: SCOPES, mode: 'test', monthly_spend_limit: COM }),
      await createKey(app, parent.key, { name: 'second', scopes: SCOPES, mode: 'test', monthly_spend_limit: COM }),
    ];
    expect((await registerWith(first.key, 'first')).status).toBe(202);
    expect((await registerWith(second.key, 'second')).status).toBe(202);
    // The session's own keys are no key's descendants.
    expect((await registerWith(c.key, 'session-key')).status).toBe(202);
  });

  it('admits exactly 3 of 12 concurrent registrations by sibling keys in six organisations under a parent limit that fits 3', async () => {
    const c = await f.customer(0, 'enterprise');
    // Each organisation's balance row serialises its own reservations; only the lineage's lock orders them across organisations.
    // Thirty writes of one user inside a second: the organisations are on the plan whose limits allow that.
    const orgs = await Promise.all(
      Array.from({ length: 6 }, async (_, i) => {
        const orgId = (await createOrg(app, c.session, `Org ${i}`)).id;
        await app.deps.db.query(`UPDATE organizations SET plan = 'enterprise' WHERE id = $1`, [orgId]);
        await creditBalance(app.deps, { orgId, livemode: false, amount: 10_000 });
        return { org: { id: orgId }, contactId: await insertContact(app.deps, { orgId, livemode: false }) };
      }),
    );
    const parent = await createKey(app, c.session, { name: 'parent', scopes: [...SCOPES, 'keys:write'], mode: 'test', monthly_spend_limit: 3 * COM + 1 });
    const children = await Promise.all(
      Array.from({ length: 12 }, (_, i) => createKey(app, parent.key, { name: `sibling ${i}`, scopes: SCOPES, mode: 'test', monthly_spend_limit: COM })),
    );
    const stamp = Date.now();
    const answers = await Promise.all(
      children.map((child, i) => {
        const { org, contactId } = orgs[i % orgs.length]!;
        return f.register({ org, key: child.key }, { name: `sibling-${stamp}-${i}.com`, years: 1, registrant_contact_id: contactId }, `sibling-${i}`);
      }),
    );
    const statuses = answers.map((res) => res.status);
    expect(statuses.filter((s) => s === 202)).toHaveLength(3);
    expect(statuses.filter((s) => s === 402)).toHaveLength(9);
  });
});
