import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../../../test/support/testApp.js';
import { bearer, jsonHeaders, uniqueEmail } from '../../../test/support/actors.js';
import { insertKey, insertMember, insertOrg, insertUser, sessionOf, type FactoryUser } from '../../../test/support/factories.js';
import { readJson, type FieldErrorBody, type MessageErrorBody } from '../../../test/support/http.js';
import { newId } from '../../ids.js';
import { capture, reserve, topUp } from './ledger.js';
import { creditLiveBalance } from '../../../test/support/billing.js';

let app: TestApp;
beforeAll(async () => {
  app = await startTestApp();
});
afterAll(async () => app?.close());

interface Balance {
  currency: string;
  available: number;
  reserved: number;
  livemode: boolean;
}
interface LedgerEntry {
  id: string;
  type: string;
  amount: number;
  currency: string;
  operation_id: string | null;
  description: string;
  available_after: number;
  reserved_after: number;
  livemode: boolean;
  created_at: string;
}
interface Page<T> {
  data: T[];
  next_cursor: string | null;
}

const postTopUp = (token: string, orgId: string, body: unknown, headers: Record<string, string> = {}) =>
  app.fetch(`/api/v1/orgs/${orgId}/billing/top-ups`, {
    method: 'POST',
    headers: { ...jsonHeaders(token), ...headers },
    body: JSON.stringify(body),
  });
const getBalance = (token: string, orgId: string) => app.fetch(`/api/v1/orgs/${orgId}/billing/balance`, { headers: bearer(token) });
const balance = async (token: string, orgId: string) => readJson<Balance>(await getBalance(token, orgId));
const transactions = async (token: string, orgId: string, query = '') =>
  readJson<Page<LedgerEntry>>(await app.fetch(`/api/v1/orgs/${orgId}/billing/transactions${query}`, { headers: bearer(token) }));

const creditLive = (orgId: string, amount: number) => creditLiveBalance(app, orgId, amount);

// Users, organisations, memberships and keys are written straight to the database (factories.ts):
// these tests are about billing, and the routes that create them have tests of their own.

/** A signed-in user (`session`) owning a new organisation. */
async function ownerOfNewOrg(label = 'owner', email = uniqueEmail(label)) {
  const user = await insertUser(app.deps, email);
  const org = await insertOrg(app.deps, { owner: user });
  return { user, session: await sessionOf(app.deps, user), org };
}

/** A signed-in user with no organisation. */
async function signedIn(email: string) {
  const user = await insertUser(app.deps, email);
  return { user, session: await sessionOf(app.deps, user) };
}

const keyOf = async (user: FactoryUser, scopes: string[], mode: 'live' | 'test' = 'live') => (await insertKey(app.deps, { user, scopes, mode })).key;
const testKeyOf = (user: FactoryUser) => keyOf(user, ['billing:read', 'billing:write'], 'test');

describe('balance', () => {
  it('is 0 available and 0 reserved, in USD, for an organisation that never topped up', async () => {
    const { session: owner, org } = await ownerOfNewOrg();
    const res = await getBalance(owner, org.id);
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ currency: 'USD', available: 0, reserved: 0, livemode: true, spent_this_month: 0, monthly_spend_limit: null });
    expect(await transactions(owner, org.id)).toEqual({ data: [], next_cursor: null });
  });

  it('shows reservations made for operations', async () => {
    const { session: owner, org } = await ownerOfNewOrg();
    await creditLive(org.id, 1000);
    await reserve({ db: app.deps.db, orgId: org.id, livemode: true, operationId: newId('op'), amount: 350, description: 'Renewal' });
    expect(await balance(owner, org.id)).toEqual({ currency: 'USD', available: 650, reserved: 350, livemode: true, spent_this_month: 350, monthly_spend_limit: null });
  });
});

describe('POST top-ups', () => {
  it('adds free test money to the test balance and answers 201 with the ledger entry', async () => {
    const { user, org } = await ownerOfNewOrg();
    const owner = await testKeyOf(user);
    const res = await postTopUp(owner, org.id, { amount: 2500 });
    expect(res.status).toBe(201);
    const entry = await readJson<LedgerEntry>(res);
    expect(entry).toEqual({
      id: expect.stringMatching(/^txn_[0-9A-Za-z]{22}$/),
      type: 'top_up',
      amount: 2500,
      currency: 'USD',
      operation_id: null,
      description: 'Top-up',
      available_after: 2500,
      reserved_after: 0,
      livemode: false,
      created_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
    });
    expect((await readJson<LedgerEntry>(await postTopUp(owner, org.id, { amount: 10_000_000 }))).available_after).toBe(10_002_500);
    expect(await balance(owner, org.id)).toMatchObject({ available: 10_002_500, reserved: 0 });
    expect((await transactions(owner, org.id)).data.map((e) => e.amount)).toEqual([10_000_000, 2500]);
    const { rows } = await app.deps.db.query('SELECT request_id, actor_user_id FROM billing_transactions WHERE id = $1', [entry.id]);
    expect(rows).toEqual([{ request_id: res.headers.get('x-request-id'), actor_user_id: expect.stringMatching(/^usr_/) }]);
  });

  it('tops up once for the same Idempotency-Key, replaying the first answer', async () => {
    const { user, org } = await ownerOfNewOrg();
    const owner = await testKeyOf(user);
    const key = { 'idempotency-key': `top-up-${newId('req')}` };
    const first = await postTopUp(owner, org.id, { amount: 700 }, key);
    const second = await postTopUp(owner, org.id, { amount: 700 }, key);
    expect([first.status, second.status]).toEqual([201, 201]);
    expect(first.headers.get('idempotent-replayed')).toBeNull();
    expect(second.headers.get('idempotent-replayed')).toBe('true');
    expect(await second.json()).toEqual(await first.json());
    expect(await balance(owner, org.id)).toMatchObject({ available: 700, reserved: 0 });
    expect((await transactions(owner, org.id)).data).toHaveLength(1);

    const reused = await postTopUp(owner, org.id, { amount: 800 }, key);
    expect(reused.status).toBe(409);
    expect((await readJson<MessageErrorBody>(reused)).code).toBe('IDEMPOTENCY_KEY_REUSED');
    expect(await balance(owner, org.id)).toMatchObject({ available: 700 });
  });

  it('refuses a live top-up with 403 PAYMENT_REQUIRED_FOR_LIVE_TOP_UP: a live balance holds only paid money', async () => {
    // The attack: any signed-in user makes an org and gives it live money that pays real registrations.
    const { session: owner, user, org } = await ownerOfNewOrg('freeloader');
    const liveKey = await keyOf(user, ['billing:read', 'billing:write']);
    const attempts = [
      await postTopUp(owner, org.id, { amount: 10_000_000 }),
      await postTopUp(liveKey, org.id, { amount: 2500 }),
      await postTopUp(owner, org.id, { amount: 2500 }, { 'idempotency-key': 'live-top-up-1' }),
      await postTopUp(owner, org.id, { amount: 2500 }, { 'idempotency-key': 'live-top-up-1' }),
    ];
    for (const res of attempts) {
      expect(res.status).toBe(403);
      expect(res.headers.get('idempotent-replayed')).toBeNull();
      expect(await readJson<MessageErrorBody>(res)).toMatchObject({ code: 'PAYMENT_REQUIRED_FOR_LIVE_TOP_UP' });
    }
    expect(await balance(owner, org.id)).toEqual({ currency: 'USD', available: 0, reserved: 0, livemode: true, spent_this_month: 0, monthly_spend_limit: null });
    expect(await transactions(owner, org.id)).toEqual({ data: [], next_cursor: null });
  });

  it('answers 422 for an amount that is not an integer from 1 to 10,000,000 minor units', async () => {
    const { session: owner, user, org } = await ownerOfNewOrg();
    const writer = await sessionOf(app.deps, user); // a fresh rate-limit pool for the many writes below
    for (const body of [{ amount: 0 }, { amount: -1 }, { amount: 10_000_001 }, { amount: 1.5 }, { amount: '100' }, {}]) {
      const res = await postTopUp(writer, org.id, body);
      expect(res.status).toBe(422);
      const error = await readJson<FieldErrorBody>(res);
      expect(error.code).toBe('VALIDATION_ERROR');
      expect(error.detail.map((e) => e.loc)).toEqual([['body', 'amount']]);
    }
    const extra = await readJson<FieldErrorBody>(await postTopUp(writer, org.id, { amount: 5, currency: 'EUR' }));
    expect(extra.detail.map((e) => e.loc[0])).toEqual(['body']);
    expect(await balance(owner, org.id)).toMatchObject({ available: 0 });
  });

  it('is for owners and admins: a member gets 403 FORBIDDEN but reads the balance', async () => {
    const { org } = await ownerOfNewOrg();
    const admin = await signedIn(uniqueEmail('admin'));
    const { user: memberUser, session: member } = await signedIn(uniqueEmail('member'));
    await insertMember(app.deps, { orgId: org.id, user: admin.user, role: 'admin' });
    await insertMember(app.deps, { orgId: org.id, user: memberUser, role: 'member' });

    const [adminKey, memberKey] = [await testKeyOf(admin.user), await testKeyOf(memberUser)];
    for (const byMember of [await postTopUp(member, org.id, { amount: 100 }), await postTopUp(memberKey, org.id, { amount: 100 })]) {
      expect(byMember.status).toBe(403);
      expect(await byMember.json()).toEqual({
        code: 'FORBIDDEN',
        detail: 'This needs the organisation role owner or admin; yours is member',
      });
    }
    expect((await postTopUp(adminKey, org.id, { amount: 100 })).status).toBe(201);
    expect(await balance(memberKey, org.id)).toMatchObject({ available: 100 });
    expect((await transactions(memberKey, org.id)).data).toHaveLength(1);
  });

  it('answers 403 NOT_ORG_MEMBER to a stranger, who sees nothing', async () => {
    const { session: owner, org } = await ownerOfNewOrg();
    const { session: stranger } = await signedIn(uniqueEmail('stranger'));
    for (const res of [
      await postTopUp(stranger, org.id, { amount: 100 }),
      await getBalance(stranger, org.id),
      await app.fetch(`/api/v1/orgs/${org.id}/billing/transactions`, { headers: bearer(stranger) }),
    ]) {
      expect(res.status).toBe(403);
      expect((await readJson<MessageErrorBody>(res)).code).toBe('NOT_ORG_MEMBER');
    }
    expect(await balance(owner, org.id)).toMatchObject({ available: 0 });
  });
});

describe('scopes', () => {
  it('needs billing:write to top up and billing:read to read', async () => {
    const { user: ownerUser, org } = await ownerOfNewOrg();
    const reader = await keyOf(ownerUser, ['billing:read']);
    const outsider = await keyOf(ownerUser, ['dns:write']);

    const denied = await postTopUp(reader, org.id, { amount: 100 });
    expect(denied.status).toBe(403);
    expect(await denied.json()).toEqual({ code: 'INSUFFICIENT_SCOPE', detail: 'This API key lacks the scope billing:write' });
    expect(await balance(reader, org.id)).toEqual({ currency: 'USD', available: 0, reserved: 0, livemode: true, spent_this_month: 0, monthly_spend_limit: null });

    for (const res of [await getBalance(outsider, org.id), await app.fetch(`/api/v1/orgs/${org.id}/billing/transactions`, { headers: bearer(outsider) })]) {
      expect(res.status).toBe(403);
      expect(await res.json()).toEqual({ code: 'INSUFFICIENT_SCOPE', detail: 'This API key lacks the scope billing:read' });
    }

    const writer = await testKeyOf(ownerUser);
    expect((await postTopUp(writer, org.id, { amount: 100 })).status).toBe(201);
    expect(await balance(writer, org.id)).toMatchObject({ available: 100, livemode: false });
  });
});

describe('test mode', () => {
  it('keeps its own balance and ledger: a test key sees only test money, the session only live money', async () => {
    const { session: owner, user: ownerUser, org } = await ownerOfNewOrg();
    const testKey = await testKeyOf(ownerUser);
    await creditLive(org.id, 5000);

    const res = await postTopUp(testKey, org.id, { amount: 700 });
    expect(res.status).toBe(201);
    expect(await res.json()).toMatchObject({ type: 'top_up', amount: 700, available_after: 700, livemode: false });

    expect(await balance(testKey, org.id)).toEqual({ currency: 'USD', available: 700, reserved: 0, livemode: false, spent_this_month: 0, monthly_spend_limit: null });
    expect(await balance(owner, org.id)).toEqual({ currency: 'USD', available: 5000, reserved: 0, livemode: true, spent_this_month: 0, monthly_spend_limit: null });
    expect((await transactions(testKey, org.id)).data.map((e) => [e.amount, e.livemode])).toEqual([[700, false]]);
    expect((await transactions(owner, org.id)).data.map((e) => [e.amount, e.livemode])).toEqual([[5000, true]]);

    // A live entry's id is no cursor for the test ledger.
    const liveEntry = (await transactions(owner, org.id)).data[0]!;
    const cursor = Buffer.from(JSON.stringify([liveEntry.created_at, liveEntry.id])).toString('base64url');
    const crossed = await app.fetch(`/api/v1/orgs/${org.id}/billing/transactions?cursor=${cursor}`, { headers: bearer(testKey) });
    expect(crossed.status).toBe(422);
  });
});

describe('GET transactions', () => {
  it('pages through every entry newest first, in posting order, with the balance after each', async () => {
    const { session: owner, org } = await ownerOfNewOrg();
    const db = app.deps.db;
    const system = { actorUserId: null, actorKeyId: null };
    for (const amount of [100, 200, 300]) await topUp({ db, orgId: org.id, livemode: true, amount, actor: system, requestId: null });
    const operationId = newId('op');
    await reserve({ db, orgId: org.id, livemode: true, operationId, amount: 250, description: 'Registration of example.com, 1 year' });
    await capture({ db, operationId });

    const seen: LedgerEntry[] = [];
    const pages: number[] = [];
    let query = '?limit=2';
    for (;;) {
      const page = await transactions(owner, org.id, query);
      seen.push(...page.data);
      pages.push(page.data.length);
      if (!page.next_cursor) break;
      query = `?limit=2&cursor=${page.next_cursor}`;
    }
    expect(pages).toEqual([2, 2, 1]);
    expect(seen.map((e) => [e.type, e.amount, e.operation_id, e.available_after, e.reserved_after])).toEqual([
      ['capture', 250, operationId, 350, 0],
      ['reservation', 250, operationId, 350, 250],
      ['top_up', 300, null, 600, 0],
      ['top_up', 200, null, 300, 0],
      ['top_up', 100, null, 100, 0],
    ]);
    expect(seen[0]!.description).toBe('Registration of example.com, 1 year');
    expect(new Set(seen.map((e) => e.id)).size).toBe(5);

    expect((await transactions(owner, org.id, '?limit=5')).next_cursor).toBeNull();
    const badLimit = await app.fetch(`/api/v1/orgs/${org.id}/billing/transactions?limit=101`, { headers: bearer(owner) });
    expect(badLimit.status).toBe(422);
    const badCursor = await app.fetch(`/api/v1/orgs/${org.id}/billing/transactions?cursor=nonsense`, { headers: bearer(owner) });
    expect(badCursor.status).toBe(422);
    expect((await readJson<FieldErrorBody>(badCursor)).detail[0]!.loc).toEqual(['query', 'cursor']);
  });
});
