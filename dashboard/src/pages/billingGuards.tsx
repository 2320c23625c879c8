import { useEffect, useState } from 'preact/hooks';
import { useDashboard } from '../context.js';
import { ErrorNote, fieldError } from '../errors.js';
import { formatDate, formatMoney } from '../format.js';
import { useAction, useLoad } from '../hooks.js';
import { ActionsHeader, Empty, Field, StatusBadge, TableScroll } from '../components/ui.js';

/** Dollars as a person types them, in integer minor units (cents); '' means no value. */
export function centsFrom(dollars: string): number | null {
  return dollars.trim() === '' ? null : Math.round(Number(dollars) * 100);
}

/** Dollars for an input's value from minor units; '' for none. */
export function dollarsFrom(cents: number | null | undefined): string {
  return cents === null || cents === undefined ? '' : (cents / 100).toFixed(2);
}

/** The owner's control over this mode's monthly spending limit (`PATCH /orgs/{org_oid}`). */
export function SpendLimitForm(props: { limit: number | null; onSaved: () => void }) {
  const { client, org, mode } = useDashboard();
  const [dollars, setDollars] = useState(dollarsFrom(props.limit));
  const save = useAction();
  useEffect(() => setDollars(dollarsFrom(props.limit)), [props.limit]);
  if (!org) return null;
  const isOwner = org.role === undefined || org.role === 'owner';

  const submit = async (limit: number | null) => {
    const done = await save.run(() => client.updateOrganization({ path: { org_oid: org.id }, body: { monthly_spend_limit: limit } }));
    if (done) props.onSaved();
  };
  const error = fieldError(save.error, 'monthly_spend_limit');

  return (
    <article>
      <header>
        <strong>Monthly spending limit</strong> <small>({mode} mode; live and test each have their own)</small>
      </header>
      <p>Registrations, transfers and renewals that would take this month's spending (UTC) past the limit are refused before anything is charged.</p>
      {isOwner ? (
        <form
          class="inline-form"
          aria-label="Monthly spending limit"
          onSubmit={(e) => {
            e.preventDefault();
            void submit(centsFrom(dollars));
          }}
        >
          <Field label="Limit in USD" error={error} hint="Leave empty for no limit">
            <input type="number" name="monthly_spend_limit" min="0" step="0.01" value={dollars} aria-invalid={error ? 'true' : undefined} onInput={(e) => setDollars(e.currentTarget.value)} />
          </Field>
          <button type="submit" aria-busy={save.busy ? 'true' : undefined}>
            Save limit
          </button>
          {props.limit !== null ? (
            <button type="button" class="secondary" onClick={() => void submit(null)}>
              Remove limit
            </button>
          ) : null}
        </form>
      ) : (
        <p>Only an owner of the organisation can change it.</p>
      )}
      <ErrorNote error={error ? undefined : save.error} />
    </article>
  );
}

/** Card top-ups (live mode, through Stripe Checkout) and where each one stands. */
export function TopUpList(props: { reloadKey: number }) {
  const { client, org } = useDashboard();
  const topUps = useLoad(
    (signal) => (org ? client.listTopUps({ path: { org_oid: org.id }, query: { limit: 20 } }, { signal }) : Promise.resolve(undefined)),
    [client, org?.id, props.reloadKey],
  );
  return (
    <>
      <h2>Top-ups</h2>
      <ErrorNote error={topUps.error} />
      {topUps.data && topUps.data.data.length === 0 ? <Empty>No card top-ups yet. Test-mode funds appear under Transactions only.</Empty> : null}
      {topUps.data && topUps.data.data.length > 0 ? (
        <TableScroll label="Top-ups">
          <table class="striped" aria-label="Top-ups">
            <thead>
              <tr>
                <th>Started</th>
                <th>Amount</th>
                <th>Status</th>
                <th>Completed</th>
                <ActionsHeader />
              </tr>
            </thead>
            <tbody>
              {topUps.data.data.map((t) => (
                <tr key={t.id}>
                  <td>{formatDate(t.created_at)}</td>
                  <td class="number">{formatMoney(t.amount, t.currency)}</td>
                  <td>
                    <StatusBadge status={t.status} />
                  </td>
                  <td>{t.completed_at ? formatDate(t.completed_at) : '—'}</td>
                  <td>{t.status === 'pending' && t.checkout_url ? <a href={t.checkout_url}>Pay now</a> : null}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </TableScroll>
      ) : null}
    </>
  );
}
