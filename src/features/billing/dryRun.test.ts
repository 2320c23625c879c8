import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../../../test/support/testApp.js';
import { bearer, createKey, jsonHeaders } from '../../../test/support/actors.js';
import { customerFactory } from '../../../test/support/customers.js';
import { readJson, type MessageErrorBody } from '../../../test/support/http.js';
import { createOwnDatabase, rowCounts } from '../../../test/support/ownDatabase.js';

// .com costs 1299 a year to register, renew and transfer (migrations/1763800002000_tld_prices.sql).
const COM = 1299;

let app: TestApp;
let database: Awaited<ReturnType<typeof createOwnDatabase>>;
let f: ReturnType<typeof customerFactory>;
type Customer = Awaited<ReturnType<ReturnType<typeof customerFactory>['customer']>>;
let c: Customer;
let owned: string;

beforeAll(async () => {
  database = await createOwnDatabase();
  app = await startTestApp({ worker: true, env: { DATABASE_URL: database.url } });
  f = customerFactory(app);
  c = await f.customer(5_000, 'enterprise');
  owned = `owned-${Date.now()}.com`;
  const res = await f.register(c, { name: owned, years: 1, registrant_contact_id: c.contactId }, `setup-${owned}`);
  expect(res.status).toBe(202);
  expect((await f.pollUntilFinished(c, res.headers.get('location')!)).status).toBe('succeeded');
});
afterAll(async () => {
  await app?.close();
  await database?.drop();
});

type Call = { path: string; body: Record<string, unknown>; key?: string };

const send = (call: Call, dryRun: boolean, idempotencyKey?: string) =>
  app.fetch(call.path, {
    method: 'POST',
    headers: {
      ...jsonHeaders(call.key ?? c.key),
      ...(dryRun ? { 'dry-run': 'true' } : {}),
      ...(idempotencyKey ? { 'idempotency-key': idempotencyKey } : {}),
    },
    body: JSON.stringify(call.body),
  });

const registerCall = (body: Record<string, unknown>): Call => ({
  path: `/api/v1/orgs/${c.org.id}/domains`,
  body: { years: 1, registrant_contact_id: c.contactId, ...body },
});
const transferCall = (body: Record<string, unknown>): Call => ({
  path: `/api/v1/orgs/${c.org.id}/domains/transfers`,
  body: { auth_code: 'EPP-123', registrant_contact_id: c.contactId, ...body },
});
const renewCall = (domain: string, body: Record<string, unknown> = {}): Call => ({ path: `/api/v1/orgs/${c.org.id}/domains/${domain}/renew`, body });

describe('Dry-Run: true', () => {
  it('answers the price and the balance after it for register, transfer and renew, and changes no table', async () => {
    const before = await rowCounts(app.deps.db);
    const balance = await f.balance(c);
    const calls = [
      registerCall({ name: `fresh-${Date.now()}.com`, years: 2 }),
      transferCall({ name: `incoming-${Date.now()}.com` }),
      renewCall(owned, { years: 2 }),
    ];
    const expected = [2 * COM, COM, 2 * COM];
    for (const [i, call] of calls.entries()) {
      const res = await send(call, true, `dry-${i}`);
      expect(res.status).toBe(200);
      expect(await res.json()).toEqual({ dry_run: true, price: { amount: expected[i], currency: 'USD' }, available_after: balance.available - expected[i]! });
    }
    expect(await f.balance(c)).toEqual(balance);
    expect(await rowCounts(app.deps.db)).toEqual(before);
  });

  it('fails exactly as the real request would, still changing nothing', async () => {
    const readOnly = (await createKey(app, c.session, { name: 'read only', scopes: ['domains:read'], mode: 'test' })).key;
    const failing: Call[] = [
      registerCall({ name: `gone-${Date.now()}-taken.com` }), // 409 DOMAIN_NOT_AVAILABLE
      registerCall({ name: owned }), // 409 DOMAIN_STATE_CONFLICT
      registerCall({ name: `contact-${Date.now()}.com`, registrant_contact_id: 'ct_missing' }), // 422
      registerCall({ name: `rich-${Date.now()}.com`, years: 10 }), // 402 INSUFFICIENT_FUNDS
      registerCall({ name: `capped-${Date.now()}.com`, max_price: COM - 1 }), // 409 PRICE_EXCEEDS_MAX
      registerCall({ name: 'not a name' }), // 422
      { ...registerCall({ name: `scope-${Date.now()}.com` }), key: readOnly }, // 403
      transferCall({ name: owned }), // 409 DOMAIN_STATE_CONFLICT
      transferCall({ name: `cheap-${Date.now()}.com`, max_price: 100 }), // 409 PRICE_EXCEEDS_MAX
      renewCall(`nobody-${Date.now()}.com`), // 404
      renewCall(owned, { years: 10 }), // 402
      renewCall(owned, { years: 1, max_price: 0 }), // 409 PRICE_EXCEEDS_MAX
    ];
    const before = await rowCounts(app.deps.db);
    const dry: { status: number; code: string }[] = [];
    for (const call of failing) {
      const res = await send(call, true);
      dry.push({ status: res.status, code: (await readJson<MessageErrorBody>(res)).code });
    }
    expect(await rowCounts(app.deps.db)).toEqual(before);
    expect(dry.map((d) => d.code)).toEqual([
      'DOMAIN_NOT_AVAILABLE',
      'DOMAIN_STATE_CONFLICT',
      'VALIDATION_ERROR',
      'INSUFFICIENT_FUNDS',
      'PRICE_EXCEEDS_MAX',
      'VALIDATION_ERROR',
      'INSUFFICIENT_SCOPE',
      'DOMAIN_STATE_CONFLICT',
      'PRICE_EXCEEDS_MAX',
      'NOT_FOUND',
      'INSUFFICIENT_FUNDS',
      'PRICE_EXCEEDS_MAX',
    ]);
    const real: { status: number; code: string }[] = [];
    for (const call of failing) {
      const res = await send(call, false);
      real.push({ status: res.status, code: (await readJson<MessageErrorBody>(res)).code });
    }
    expect(real).toEqual(dry);
  });

  it('stores no idempotency record: the same key then runs the real request', async () => {
    const name = `later-${Date.now()}.com`;
    const dry = await send(registerCall({ name }), true, `key-${name}`);
    expect(dry.status).toBe(200);
    const real = await send(registerCall({ name }), false, `key-${name}`);
    expect(real.status).toBe(202);
    expect(real.headers.get('idempotent-replayed')).toBeNull();
    expect((await f.pollUntilFinished(c, real.headers.get('location')!)).status).toBe('succeeded');
  });

  it('refuses a Dry-Run value other than true or false', async () => {
    const res = await app.fetch(`/api/v1/orgs/${c.org.id}/domains/${owned}/renew`, {
      method: 'POST',
      headers: { ...bearer(c.key), 'dry-run': 'yes' },
    });
    expect(res.status).toBe(422);
    expect(JSON.stringify(await res.json())).toContain('dry-run');
  });
});
