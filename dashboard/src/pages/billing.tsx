import { useState } from 'preact/hooks';
import { useDashboard } from '../context.js';
import { ErrorNote, fieldError } from '../errors.js';
import { formatDate, formatMoney } from '../format.js';
import { useAction, useCursorPages, useLoad } from '../hooks.js';
import { Empty, Field, NeedsOrganisation, Pager, TableScroll } from '../components/ui.js';
import { SpendLimitForm, TopUpList } from './billingGuards.js';

const ENTRY_LABELS = { top_up: 'Top-up', reservation: 'Held', capture: 'Charged', release: 'Released' } as const;

export function BillingPage() {
  const { client, org, mode } = useDashboard();
  const balance = useLoad((signal) => (org ? client.getBalance({ path: { org_oid: org.id } }, { signal }) : Promise.resolve(undefined)), [client, org?.id]);
  const pages = useCursorPages([org?.id, client]);
  const ledger = useLoad(
    (signal) =>
      org ? client.listTransactions({ path: { org_oid: org.id }, query: { limit: 20, ...(pages.cursor ? { cursor: pages.cursor } : {}) } }, { signal }) : Promise.resolve(undefined),
    [client, org?.id, pages.cursor],
  );
  const [dollars, setDollars] = useState('50');
  const topUp = useAction();
  const [topUpsShown, setTopUpsShown] = useState(0);
  if (!org) return <NeedsOrganisation />;

  const submit = async (event: Event) => {
    event.preventDefault();
    const amount = Math.round(Number(dollars) * 100);
    const done = await topUp.run(() => client.createTopUp({ path: { org_oid: org.id }, body: { amount } }));
    // Live mode answers with a pending top-up to pay on Stripe's Checkout page; test mode with the ledger entry.
    if (done && 'checkout_url' in done && done.checkout_url) {
      window.location.assign(done.checkout_url);
      return;
    }
    if (done) {
      setTopUpsShown((n) => n + 1);
      balance.reload();
      ledger.reload();
    }
  };

  return (
    <section>
      <h1>Billing</h1>
      <ErrorNote error={balance.error} />
      {balance.data ? (
        <dl class="summary balance">
          <div>
            <dt>Available {balance.data.livemode ? '' : '(test)'}</dt>
            <dd data-testid="available">{formatMoney(balance.data.available, balance.data.currency)}</dd>
          </div>
          <div>
            <dt>Held for operations in progress</dt>
            <dd>{formatMoney(balance.data.reserved, balance.data.currency)}</dd>
          </div>
          <div>
            <dt>Spent this month</dt>
            <dd data-testid="spent-this-month">{formatMoney(balance.data.spent_this_month, balance.data.currency)}</dd>
          </div>
          <div>
            <dt>Monthly limit</dt>
            <dd data-testid="monthly-limit">{balance.data.monthly_spend_limit === null ? 'none' : formatMoney(balance.data.monthly_spend_limit, balance.data.currency)}</dd>
          </div>
        </dl>
      ) : null}
      <article>
        <header>
          <strong>Top up</strong> {mode === 'test' ? <small>(test funds are free and credited at once)</small> : <small>(you pay by card on Stripe's page, then come back here)</small>}
        </header>
        <form class="inline-form" onSubmit={(e) => void submit(e)} aria-label="Top up">
          <Field label="Amount in USD" error={fieldError(topUp.error, 'amount')}>
            <input type="number" name="amount" min="0.01" step="0.01" required value={dollars} onInput={(e) => setDollars(e.currentTarget.value)} />
          </Field>
          <button type="submit" aria-busy={topUp.busy ? 'true' : undefined}>
            Add funds
          </button>
        </form>
        <ErrorNote error={fieldError(topUp.error, 'amount') ? undefined : topUp.error} />
      </article>
      <SpendLimitForm limit={balance.data?.monthly_spend_limit ?? null} onSaved={balance.reload} />
      <TopUpList reloadKey={topUpsShown} />
      <h2>Transactions</h2>
      <ErrorNote error={ledger.error} />
      {ledger.data && ledger.data.data.length === 0 ? <Empty>No transactions yet.</Empty> : null}
      {ledger.data && ledger.data.data.length > 0 ? (
        <TableScroll label="Transactions">
          <table class="striped" aria-label="Transactions">
            <thead>
              <tr>
                <th>When</th>
                <th>What</th>
                <th>Amount</th>
                <th>Available after</th>
                <th>Description</th>
              </tr>
            </thead>
            <tbody>
              {ledger.data.data.map((t) => (
                <tr key={t.id}>
                  <td>{formatDate(t.created_at)}</td>
                  <td>{ENTRY_LABELS[t.type]}</td>
                  <td class="number">{formatMoney(t.amount, t.currency)}</td>
                  <td class="number">{formatMoney(t.available_after, t.currency)}</td>
                  <td>{t.description}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </TableScroll>
      ) : null}
      <Pager page={pages.page} nextCursor={ledger.data?.next_cursor} onNext={pages.next} onPrevious={pages.previous} />
    </section>
  );
}
