import { defineRoute } from '../../http/route.js';
import type Stripe from 'stripe';
import type { PlatformDeps } from '../../platformDeps.js';
import { findBalance } from './balances.repository.js';
import { monthSpendingOfOrg } from './reservations.repository.js';
import { listLedgerEntries } from './transactions.repository.js';
import { decodeCursor, PaginationQuery, toPage } from '../../http/pagination.js';
import { BalanceSchema, LedgerEntrySchema, presentBalance, presentLedgerEntry, presentTopUp, TopUpSchema } from './billing.presenter.js';
import { testTopUpWithin } from './testTopUp.js';
import { NotFoundError } from '../../errors.js';
import { PaymentRequiredForLiveTopUpError } from './errors.js';
import { z } from 'zod';
import { findTopUp, listTopUps } from './topUps.repository.js';
import { startStripeTopUp } from './stripeTopUps.js';
import { answerInTransaction, idempotentId } from '../../http/idempotency.js';
import { LedgerEntryPage, TopUpBody, TopUpPage, TopUpPath } from './schemas.js';
import { OrgPath } from '../../http/pathParams.js';
import { modeOf } from '../../db/modeScope.js';

export type BillingRouteDeps = Pick<PlatformDeps, 'db' | 'config'> & {
  /** The Stripe library for live top-ups; absent when STRIPE_API_KEY is unset (live top-ups refused). */
  stripe: Stripe | undefined;
};

/** Balance, ledger and top-ups of an organisation, in the caller's mode: test keys see only test money. */
export function billingRoutes(deps: BillingRouteDeps) {
  return [
    defineRoute({
      method: 'get',
      path: '/api/v1/orgs/{org_oid}/billing/balance',
      operationId: 'getBalance',
      summary: "The organisation's balance in the caller's mode",
      description: 'Integer minor units. An organisation that never topped up has 0 available and 0 reserved.',
      tags: ['billing'],
      scope: 'billing:read',
      request: { path: OrgPath },
      responses: { 200: { description: 'The balance', schema: BalanceSchema } },
      handler: async (ctx, { path, principal }) => {
        const mode = modeOf(principal.livemode);
        const [balance, spent] = await Promise.all([findBalance(deps.db, mode, path.org_oid), monthSpendingOfOrg(deps.db, mode, path.org_oid)]);
        ctx.body = presentBalance(balance, spent);
      },
    }),
    defineRoute({
      method: 'get',
      path: '/api/v1/orgs/{org_oid}/billing/transactions',
      operationId: 'listTransactions',
      summary: "Ledger entries in the caller's mode, newest first",
      description: 'Every movement of the balance: top-ups, reservations, captures and releases, each with the balance after it.',
      tags: ['billing'],
      scope: 'billing:read',
      request: { path: OrgPath, query: PaginationQuery },
      responses: { 200: { description: 'A page of ledger entries', schema: LedgerEntryPage } },
      handler: async (ctx, { path, query, principal }) => {
        const mode = modeOf(principal.livemode);
        const rows = await listLedgerEntries(deps.db, mode, {
          orgId: path.org_oid,
          limit: query.limit,
          after: decodeCursor(query.cursor),
        });
        ctx.body = toPage(rows, query.limit, (e) => ({ createdAt: e.createdAt, id: e.id }), presentLedgerEntry);
      },
    }),
    defineRoute({
      method: 'post',
      path: '/api/v1/orgs/{org_oid}/billing/top-ups',
      operationId: 'createTopUp',
      summary: 'Top up the balance: free and at once in test mode, paid through Stripe Checkout in live mode',
      description:
        'Test mode: free test money, credited at once; the answer is the ledger entry. Live mode with Stripe configured: a ' +
        'pending top-up with a `checkout_url` (a Stripe Checkout Session); the balance is credited once Stripe reports the ' +
        'payment (`POST /api/v1/billing/stripe/webhook`); follow it with `GET …/billing/top-ups/{top_up_id}`. Live mode ' +
        'without Stripe: 403 `PAYMENT_REQUIRED_FOR_LIVE_TOP_UP` (an operator credits live balances). Send an `Idempotency-Key` ' +
        'so that a retry never tops up (or opens a checkout) twice.',
      tags: ['billing'],
      scope: 'billing:write',
      roles: ['owner', 'admin'],
      request: { path: OrgPath, body: TopUpBody },
      responses: {
        201: {
          description: 'Test mode: the ledger entry of the top-up. Live mode: the pending top-up to pay at `checkout_url`',
          schema: z.union([LedgerEntrySchema, TopUpSchema]),
        },
      },
      errors: { 503: 'Stripe could not open a checkout (`PAYMENT_PROVIDER_UNAVAILABLE`); nothing was charged' },
      handler: async (ctx, { path, body, principal, requestId }) => {
        if (principal.livemode) {
          // Unpaid live money would pay real registrations on the operator's registrar account.
          if (!deps.stripe || !deps.config.stripe) throw new PaymentRequiredForLiveTopUpError();
          const started = await startStripeTopUp({
            db: deps.db,
            stripe: deps.stripe,
            principal,
            orgId: path.org_oid,
            amount: body.amount,
            returnUrl: deps.config.stripe.returnUrl,
            log: ctx.state.log,
          });
          ctx.status = 201;
          ctx.set('Location', `/api/v1/orgs/${path.org_oid}/billing/top-ups/${started.id}`);
          ctx.body = presentTopUp(started);
          return;
        }
        // The credit and its stored answer commit together.
        await answerInTransaction(ctx, deps.db, async (tx) => {
          const entry = await testTopUpWithin(tx, {
            principal,
            requestId,
            orgId: path.org_oid,
            amount: body.amount,
            entryId: idempotentId(ctx.state, 'txn', 'top-up'),
          });
          return { status: 201, body: presentLedgerEntry(entry) };
        });
      },
    }),
    defineRoute({
      method: 'get',
      path: '/api/v1/orgs/{org_oid}/billing/top-ups',
      operationId: 'listTopUps',
      summary: "Top-ups paid through Stripe in the caller's mode, newest first",
      description: 'Test-mode top-ups are credited at once and appear as ledger entries (`GET …/billing/transactions`) only.',
      tags: ['billing'],
      scope: 'billing:read',
      request: { path: OrgPath, query: PaginationQuery },
      responses: { 200: { description: 'A page of top-ups', schema: TopUpPage } },
      handler: async (ctx, { path, query, principal }) => {
        const mode = modeOf(principal.livemode);
        const rows = await listTopUps(deps.db, mode, { orgId: path.org_oid, limit: query.limit, after: decodeCursor(query.cursor) });
        ctx.body = toPage(rows, query.limit, (t) => ({ createdAt: t.createdAt, id: t.id }), presentTopUp);
      },
    }),
    defineRoute({
      method: 'get',
      path: '/api/v1/orgs/{org_oid}/billing/top-ups/{top_up_id}',
      operationId: 'getTopUp',
      summary: 'One top-up: `pending` until Stripe reports it paid (`succeeded`), failed or expired',
      tags: ['billing'],
      scope: 'billing:read',
      request: { path: TopUpPath },
      responses: { 200: { description: 'The top-up', schema: TopUpSchema } },
      handler: async (ctx, { path, principal }) => {
        const mode = modeOf(principal.livemode);
        const found = await findTopUp(deps.db, mode, path.org_oid, path.top_up_id);
        if (!found) throw new NotFoundError('Top-up not found');
        ctx.body = presentTopUp(found);
      },
    }),
  ];
}
