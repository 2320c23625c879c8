import { useState } from 'preact/hooks';
import { Link, useLocation } from 'wouter-preact';
import { ApiError, isDryRun, realAnswer, type components, type DryRun } from '../../../client/src/index.js';
import { useDashboard } from '../context.js';
import { ErrorNote, describeError, fieldError } from '../errors.js';
import { formatMoney } from '../format.js';
import { useAction, useLoad } from '../hooks.js';
import { Field } from '../components/ui.js';
import { centsFrom } from './billingGuards.js';

type Availability = components['schemas']['Availability'];


function ContactSelect(props: { orgId: string; value: string; onChange: (id: string) => void; error?: string | undefined }) {
  const { client } = useDashboard();
  const contacts = useLoad((signal) => client.listContacts({ path: { org_oid: props.orgId }, query: { limit: 100 } }, { signal }), [client, props.orgId]);
  const list = contacts.data?.data ?? [];
  return (
    <Field label="Registrant contact" error={props.error}>
      {list.length === 0 && contacts.data ? (
        <p>
          No contacts yet: <Link href="/contacts">add one</Link> first (registries need a registrant).
        </p>
      ) : (
        <select name="registrant" required value={props.value} onChange={(e) => props.onChange(e.currentTarget.value)}>
          <option value="">Choose…</option>
          {list.map((c) => (
            <option key={c.id} value={c.id}>
              {c.first_name} {c.last_name} ({c.email})
            </option>
          ))}
        </select>
      )}
    </Field>
  );
}

/** A 402 with the numbers: what it costs against what the balance holds. */
function PaymentProblem({ error, price, available }: { error: unknown; price: number | undefined; available: number | undefined }) {
  if (!(error instanceof ApiError) || error.status !== 402) return <ErrorNote error={error} />;
  return (
    <div class="error-note" role="alert" data-testid="payment-required">
      <strong>{error.code === 'SPEND_LIMIT_REACHED' ? 'Over a spending limit.' : 'Not enough funds.'}</strong>{' '}
      {error.code !== 'SPEND_LIMIT_REACHED' && price !== undefined && available !== undefined
        ? `This costs ${formatMoney(price)} but your balance has ${formatMoney(available)} available. `
        : ''}
      {describeError(error)} <Link href="/billing">Go to Billing</Link>
    </div>
  );
}

export function RegisterForm({ orgId, availability }: { orgId: string; availability: Availability }) {
  const { client, mode } = useDashboard();
  // The balance the registration would draw on, shown beside the price.
  const balance = useLoad((signal) => client.getBalance({ path: { org_oid: orgId } }, { signal }), [client, orgId]);
  const [years, setYears] = useState(1);
  const [registrant, setRegistrant] = useState('');
  const [autoRenew, setAutoRenew] = useState(false);
  const [whoisPrivacy, setWhoisPrivacy] = useState(false);
  const [maxPrice, setMaxPrice] = useState('');
  const [checked, setChecked] = useState<DryRun | undefined>(undefined);
  const register = useAction();
  const [, navigate] = useLocation();
  const price = availability.price ? availability.price.amount * years : undefined;
  const available = balance.data?.available;

  const limit = centsFrom(maxPrice);
  const body = {
    name: availability.name,
    years,
    registrant_contact_id: registrant,
    auto_renew: autoRenew,
    ...(whoisPrivacy ? { whois_privacy: true } : {}),
    ...(limit === null ? {} : { max_price: limit }),
  };

  const submit = async (event: Event) => {
    event.preventDefault();
    setChecked(undefined);
    const operation = await register.run(async () => realAnswer(await client.registerDomain({ path: { org_oid: orgId }, body })));
    if (operation) navigate(`/operations/${operation.id}`);
    else balance.reload();
  };
  // `Dry-Run: true`: every check of the real request (funds, spending limits, max price), nothing kept.
  const checkFirst = async () => {
    setChecked(undefined);
    const answer = await register.run(() => client.registerDomain({ path: { org_oid: orgId }, body }, { headers: { 'dry-run': 'true' } }));
    if (answer && isDryRun(answer)) setChecked(answer);
  };

  return (
    <article aria-label="Register a domain">
      <header>
        <strong>Register {availability.unicode_name}</strong> {mode === 'test' ? <small>(test mode: no registrar, test balance)</small> : null}
      </header>
      <form onSubmit={(e) => void submit(e)}>
        <div class="grid">
          <Field label="Years" error={fieldError(register.error, 'years')}>
            <input type="number" name="years" min={1} max={10} value={years} onInput={(e) => setYears(Number(e.currentTarget.value) || 1)} />
          </Field>
          <ContactSelect orgId={orgId} value={registrant} onChange={setRegistrant} error={fieldError(register.error, 'registrant_contact_id')} />
          <Field label="Max price in USD" error={fieldError(register.error, 'max_price')} hint="Optional: refuse if it would cost more">
            <input type="number" name="max_price" min="0" step="0.01" value={maxPrice} onInput={(e) => setMaxPrice(e.currentTarget.value)} />
          </Field>
        </div>
        <label>
          <input type="checkbox" role="switch" checked={autoRenew} onChange={(e) => setAutoRenew(e.currentTarget.checked)} />
          Renew automatically from the balance
        </label>
        <label>
          <input type="checkbox" role="switch" checked={whoisPrivacy} onChange={(e) => setWhoisPrivacy(e.currentTarget.checked)} />
          WHOIS privacy (hide the registrant in public WHOIS)
        </label>
        <p class="price-line">
          Price: <strong data-testid="price">{price !== undefined ? formatMoney(price) : '—'}</strong> · Balance available:{' '}
          <strong data-testid="balance">{available !== undefined ? formatMoney(available) : '—'}</strong>
        </p>
        {checked ? (
          <p data-testid="dry-run" role="status">
            Checked, nothing charged: it would cost {formatMoney(checked.price.amount)}, leaving {formatMoney(checked.available_after)} available.
          </p>
        ) : null}
        <PaymentProblem
          error={fieldError(register.error, 'years') || fieldError(register.error, 'registrant_contact_id') || fieldError(register.error, 'max_price') ? undefined : register.error}
          price={price}
          available={available}
        />
        <div class="button-row">
          <button type="button" class="secondary" disabled={register.busy} onClick={() => void checkFirst()}>
            Check first
          </button>
          <button type="submit" aria-busy={register.busy ? 'true' : undefined} disabled={register.busy}>
            Register for {price !== undefined ? formatMoney(price) : '…'}
          </button>
        </div>
      </form>
    </article>
  );
}

export function TransferForm({ orgId }: { orgId: string }) {
  const { client } = useDashboard();
  const [name, setName] = useState('');
  const [authCode, setAuthCode] = useState('');
  const [registrant, setRegistrant] = useState('');
  const transfer = useAction();
  const [, navigate] = useLocation();
  const submit = async (event: Event) => {
    event.preventDefault();
    const operation = await transfer.run(async () =>
      realAnswer(await client.transferDomain({ path: { org_oid: orgId }, body: { name, auth_code: authCode, registrant_contact_id: registrant } })),
    );
    if (operation) navigate(`/operations/${operation.id}`);
  };
  return (
    <form onSubmit={(e) => void submit(e)} aria-label="Transfer a domain in">
      <div class="grid">
        <Field label="Domain" error={fieldError(transfer.error, 'name')}>
          <input name="transfer-name" required value={name} placeholder="example.com" onInput={(e) => setName(e.currentTarget.value.trim())} />
        </Field>
        <Field label="Auth code from the current registrar" error={fieldError(transfer.error, 'auth_code')}>
          <input name="auth-code" required value={authCode} autocomplete="off" onInput={(e) => setAuthCode(e.currentTarget.value)} />
        </Field>
      </div>
      <ContactSelect orgId={orgId} value={registrant} onChange={setRegistrant} error={fieldError(transfer.error, 'registrant_contact_id')} />
      <PaymentProblem error={transfer.error} price={undefined} available={undefined} />
      <button type="submit" aria-busy={transfer.busy ? 'true' : undefined}>
        Start transfer
      </button>
    </form>
  );
}
