import { defineRoute } from '../../http/route.js';
import type { AppDeps } from '../../deps.js';
import { requirePrincipal } from '../../auth/authorize.js';
import { actorOf } from '../../db/repositories/auditEvents.js';
import { findBalance } from '../../db/repositories/billingBalances.js';
import { monthSpendingOfOrg } from '../../db/repositories/billingReservations.js';
import { listLedgerEntries } from '../../db/repositories/billingTransactions.js';
import { decodeCursor, PaginationQuery, toPage } from '../../http/pagination.js';
import { BalanceSchema, LedgerEntrySchema, presentBalance, presentLedgerEntry } from '../../presenters/billing.js';
import { topUp } from '../../services/billing/ledger.js';
import { PaymentRequiredForLiveTopUpError } from '../../errors.js';
import { LedgerEntryPage, OrgPath, TopUpBody } from './schema.js';

/** Balance, ledger and top-ups of an organisation, in the caller's mode: test keys see only test money. */
export function billingRoutes(deps: AppDeps) {
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
      handler: async (ctx, { path }) => {
        const mode = { livemode: requirePrincipal(ctx.state).livemode };
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
      handler: async (ctx, { path, query }) => {
        const mode = { livemode: requirePrincipal(ctx.state).livemode };
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
      summary: 'Add free test money to the test-mode balance',
      description:
        'Test keys only: test money is free and credited at once. A live top-up is refused with 403 `PAYMENT_REQUIRED_FOR_LIVE_TOP_UP`: ' +
        'a live balance holds only money that was paid, credited by an operator. Send an `Idempotency-Key` so that a retry never tops up twice.',
      tags: ['billing'],
      scope: 'billing:write',
      roles: ['owner', 'admin'],
      request: { path: OrgPath, body: TopUpBody },
      responses: { 201: { description: 'The ledger entry of the top-up', schema: LedgerEntrySchema } },
      handler: async (ctx, { path, body }) => {
        const principal = requirePrincipal(ctx.state);
        // Unpaid live money would pay real registrations on the operator's registrar account.
        if (principal.livemode) throw new PaymentRequiredForLiveTopUpError();
        const entry = await topUp({
          db: deps.db,
          orgId: path.org_oid,
          livemode: principal.livemode,
          amount: body.amount,
          actor: actorOf(principal),
          requestId: ctx.state.requestId,
        });
        ctx.status = 201;
        ctx.body = presentLedgerEntry(entry);
      },
    }),
  ];
}
