import Stripe from 'stripe';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../../../test/support/testApp.js';
import { bearer, createKey, createOrg, jsonHeaders, sessionToken, uniqueEmail } from '../../../test/support/actors.js';
import { readJson, type MessageErrorBody } from '../../../test/support/http.js';
import { startStripeMock, type StripeMock } from '../../../test/support/stripeMock.js';

const WEBHOOK_SECRET = 'whsec_test_domain_service';
// The library's own signing helper; no network involved.
const stripe = new Stripe('sk_test_signing_only');

let mock: StripeMock;
let app: TestApp;
beforeAll(async () => {
  mock = await startStripeMock();
  app = await startTestApp({ env: { STRIPE_API_KEY: 'sk_test_123', STRIPE_WEBHOOK_SECRET: WEBHOOK_SECRET, STRIPE_API_BASE: mock.url } });
});
afterAll(async () => {
  await app?.close();
  await mock?.close();
});

interface TopUpBody {
  id: string;
  amount: number;
  status: string;
  checkout_url: string | null;
  ledger_entry_id: string | null;
}

async function liveOwner() {
  const token = await sessionToken(app, uniqueEmail('payer'));
  const org = await createOrg(app, token);
  return { token, org };
}

async function startTopUp(owner: { token: string; org: { id: string } }, amount: number): Promise<TopUpBody & { sessionId: string }> {
  const res = await app.fetch(`/api/v1/orgs/${owner.org.id}/billing/top-ups`, { method: 'POST', headers: jsonHeaders(owner.token), body: JSON.stringify({ amount }) });
  expect(res.status).toBe(201);
  const body = await readJson<TopUpBody>(res);
  const { rows } = await app.deps.db.query<{ id: string }>('SELECT stripe_session_id AS id FROM billing_top_ups WHERE id = $1', [body.id]);
  return { ...body, sessionId: rows[0]!.id };
}

/**
 * A Checkout Session event as Stripe sends it, for the session stripe-mock opened: in test mode, the
 * mode of the app's `sk_test_` key, unless `livemode` says otherwise.
 */
function sessionEvent(type: string, topUp: { id: string; amount: number; sessionId: string }, paymentStatus: 'paid' | 'unpaid', livemode = false) {
  return JSON.stringify({
    id: `evt_${type}_${Math.random().toString(36).slice(2)}`,
    object: 'event',
    type,
    livemode,
    data: {
      object: {
        id: topUp.sessionId,
        object: 'checkout.session',
        mode: 'payment',
        amount_total: topUp.amount,
        currency: 'usd',
        payment_status: paymentStatus,
        client_reference_id: topUp.id,
        metadata: { top_up_id: topUp.id },
      },
    },
  });
}

const deliver = (payload: string, secret = WEBHOOK_SECRET, signedPayload = payload) =>
  app.fetch('/api/v1/billing/stripe/webhook', {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'stripe-signature': stripe.webhooks.generateTestHeaderString({ payload: signedPayload, secret }) },
    body: payload,
  });

const balanceOf = async (owner: { token: string; org: { id: string } }) =>
  readJson<{ available: number }>(await app.fetch(`/api/v1/orgs/${owner.org.id}/billing/balance`, { headers: bearer(owner.token) }));

describe('live top-ups through Stripe Checkout (stripe-mock)', () => {
  it('answers a pending top-up with a checkout URL; the signed webhook credits it once, however often and in whatever order it comes', async () => {
    const owner = await liveOwner();
    const topUp = await startTopUp(owner, 5_000);
    expect(topUp).toMatchObject({ id: expect.stringMatching(/^tu_/), amount: 5_000, status: 'pending', checkout_url: expect.stringMatching(/^https:\/\/checkout\.stripe\.com\//) });
    expect(await balanceOf(owner)).toMatchObject({ available: 0 });

    // The session's expiry arrives first (Stripe does not promise order), then its completion three times at once.
    expect((await deliver(sessionEvent('checkout.session.expired', topUp, 'unpaid'))).status).toBe(200);
    const completed = sessionEvent('checkout.session.completed', topUp, 'paid');
    const answers = await Promise.all([deliver(completed), deliver(completed), deliver(completed)]);
    expect(answers.map((res) => res.status)).toEqual([200, 200, 200]);
    const outcomes = await Promise.all(answers.map(async (res) => (await readJson<{ outcome: string }>(res)).outcome));
    expect(outcomes.sort()).toEqual(['already_credited', 'already_credited', 'credited']);
    // A late expiry changes nothing.
    await deliver(sessionEvent('checkout.session.expired', topUp, 'unpaid'));

    expect(await balanceOf(owner)).toMatchObject({ available: 5_000 });
    const shown = await readJson<TopUpBody>(await app.fetch(`/api/v1/orgs/${owner.org.id}/billing/top-ups/${topUp.id}`, { headers: bearer(owner.token) }));
    expect(shown).toMatchObject({ status: 'succeeded', checkout_url: null, ledger_entry_id: expect.stringMatching(/^txn_/) });
    const ledger = await readJson<{ data: { type: string; amount: number }[] }>(
      await app.fetch(`/api/v1/orgs/${owner.org.id}/billing/transactions`, { headers: bearer(owner.token) }),
    );
    expect(ledger.data.map((e) => [e.type, e.amount])).toEqual([['top_up', 5_000]]);
  });

  it('refuses a forged or altered event with 400 and credits nothing', async () => {
    const owner = await liveOwner();
    const topUp = await startTopUp(owner, 2_500);
    const paid = sessionEvent('checkout.session.completed', topUp, 'paid');
    const forged = await deliver(paid, 'whsec_someone_else');
    expect(forged.status).toBe(400);
    expect((await readJson<MessageErrorBody>(forged)).code).toBe('INVALID_SIGNATURE');
    const altered = await deliver(paid, WEBHOOK_SECRET, sessionEvent('checkout.session.completed', topUp, 'unpaid'));
    expect(altered.status).toBe(400);
    const unsigned = await app.fetch('/api/v1/billing/stripe/webhook', { method: 'POST', headers: { 'content-type': 'application/json' }, body: paid });
    expect(unsigned.status).toBe(400);
    expect(await balanceOf(owner)).toMatchObject({ available: 0 });
    const list = await readJson<{ data: TopUpBody[] }>(await app.fetch(`/api/v1/orgs/${owner.org.id}/billing/top-ups`, { headers: bearer(owner.token) }));
    expect(list.data.map((t) => [t.id, t.status])).toEqual([[topUp.id, 'pending']]);
  });

  it("credits nothing from an event of the other mode than the key's, and acknowledges it so Stripe stops", async () => {
    const owner = await liveOwner();
    const topUp = await startTopUp(owner, 3_000);
    // A live-mode event reaching a deployment whose key is a test key (or a test event reaching a live one).
    for (const type of ['checkout.session.completed', 'checkout.session.expired']) {
      const res = await deliver(sessionEvent(type, topUp, type.endsWith('completed') ? 'paid' : 'unpaid', true));
      expect(res.status).toBe(200);
      expect(await readJson(res)).toEqual({ received: true, outcome: 'ignored_other_mode' });
    }
    expect(await balanceOf(owner)).toMatchObject({ available: 0 });
    const pending = await readJson<TopUpBody>(await app.fetch(`/api/v1/orgs/${owner.org.id}/billing/top-ups/${topUp.id}`, { headers: bearer(owner.token) }));
    expect(pending.status).toBe('pending');

    // The same payment in the key's own mode is credited.
    expect(await readJson(await deliver(sessionEvent('checkout.session.completed', topUp, 'paid')))).toMatchObject({ outcome: 'credited' });
    expect(await balanceOf(owner)).toMatchObject({ available: 3_000 });
  });

  it('marks a failed or expired session, and waits for an asynchronous payment before crediting', async () => {
    const owner = await liveOwner();
    const slow = await startTopUp(owner, 1_000);
    expect(await readJson(await deliver(sessionEvent('checkout.session.completed', slow, 'unpaid')))).toMatchObject({ outcome: 'ignored' });
    expect(await readJson(await deliver(sessionEvent('checkout.session.async_payment_failed', slow, 'unpaid')))).toMatchObject({ outcome: 'marked_failed' });
    const lapsed = await startTopUp(owner, 1_500);
    expect(await readJson(await deliver(sessionEvent('checkout.session.expired', lapsed, 'unpaid')))).toMatchObject({ outcome: 'marked_expired' });
    const list = await readJson<{ data: TopUpBody[] }>(await app.fetch(`/api/v1/orgs/${owner.org.id}/billing/top-ups`, { headers: bearer(owner.token) }));
    expect(list.data.map((t) => t.status)).toEqual(['expired', 'failed']);
    expect(await balanceOf(owner)).toMatchObject({ available: 0 });
  });

  it('keeps test-mode top-ups free and instant', async () => {
    const owner = await liveOwner();
    const key = await createKey(app, owner.token, { name: 'test', scopes: ['billing:read', 'billing:write'], mode: 'test' });
    const res = await app.fetch(`/api/v1/orgs/${owner.org.id}/billing/top-ups`, { method: 'POST', headers: jsonHeaders(key.key), body: '{"amount":700}' });
    expect(res.status).toBe(201);
    expect(await res.json()).toMatchObject({ type: 'top_up', amount: 700, livemode: false });
  });
});
