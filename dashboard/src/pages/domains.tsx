import { useState } from 'preact/hooks';
import { Link, useLocation } from 'wouter-preact';
import type { components } from '../../../client/src/index.js';
import { useDashboard } from '../context.js';
import { ErrorNote } from '../errors.js';
import { formatDay, formatMoney } from '../format.js';
import { useAction, useCursorPages, useLoad } from '../hooks.js';
import { Empty, NeedsOrganisation, Pager, StatusBadge, TableScroll } from '../components/ui.js';
import { RegisterForm, TransferForm } from './domainForms.js';

type Availability = components['schemas']['Availability'];
type BulkResult = components['schemas']['BulkAvailability']['results'][number];

export function DomainsPage() {
  const { org } = useDashboard();
  const [chosen, setChosen] = useState<Availability | undefined>(undefined);
  if (!org) return <NeedsOrganisation />;
  return (
    <section>
      <h1>Domains</h1>
      <div class="grid two">
        <AvailabilityCheck onChoose={setChosen} />
        <BulkAvailabilityCheck onChoose={setChosen} />
      </div>
      {chosen ? <RegisterForm key={chosen.name} orgId={org.id} availability={chosen} /> : null}
      <DomainList orgId={org.id} />
      <details>
        <summary>Transfer a domain in</summary>
        <TransferForm orgId={org.id} />
      </details>
    </section>
  );
}

function AvailabilityCheck({ onChoose }: { onChoose: (a: Availability) => void }) {
  const { client } = useDashboard();
  const [name, setName] = useState('');
  const [result, setResult] = useState<Availability | undefined>(undefined);
  const check = useAction();
  const submit = async (event: Event) => {
    event.preventDefault();
    setResult(await check.run(() => client.checkAvailability({ query: { name } })));
  };
  return (
    <article>
      <header>
        <strong>Check a name</strong>
      </header>
      <form role="search" onSubmit={(e) => void submit(e)} aria-label="Check availability">
        <input name="domain" type="search" placeholder="example.com" required value={name} onInput={(e) => setName(e.currentTarget.value.trim())} />
        <button type="submit" aria-busy={check.busy ? 'true' : undefined}>
          Check
        </button>
      </form>
      <ErrorNote error={check.error} />
      {result ? <AvailabilityLine result={result} onChoose={onChoose} /> : null}
    </article>
  );
}

function AvailabilityLine({ result, onChoose }: { result: Availability; onChoose: (a: Availability) => void }) {
  return (
    <p class="availability" data-testid="availability">
      <strong>{result.unicode_name}</strong>{' '}
      {result.available ? (
        <>
          is available{result.premium ? ' (premium)' : ''} for {result.price ? formatMoney(result.price.amount) : '—'} a year.{' '}
          <button type="button" class="small" onClick={() => onChoose(result)}>
            Register…
          </button>
        </>
      ) : (
        <>is taken{result.reason ? ` (${result.reason})` : ''}.</>
      )}
    </p>
  );
}

function BulkAvailabilityCheck({ onChoose }: { onChoose: (a: Availability) => void }) {
  const { client } = useDashboard();
  const [text, setText] = useState('');
  const [results, setResults] = useState<BulkResult[] | undefined>(undefined);
  const check = useAction();
  const submit = async (event: Event) => {
    event.preventDefault();
    const names = text.split(/[\s,]+/).filter(Boolean);
    const answer = await check.run(() => client.checkAvailabilityBulk({ body: { names } }));
    setResults(answer?.results);
  };
  return (
    <article>
      <header>
        <strong>Check many names</strong>
      </header>
      <form onSubmit={(e) => void submit(e)} aria-label="Check availability in bulk">
        <textarea name="names" rows={3} placeholder="one per line: acme.com acme.dev acme.io" value={text} onInput={(e) => setText(e.currentTarget.value)} />
        <button type="submit" class="secondary" aria-busy={check.busy ? 'true' : undefined}>
          Check all
        </button>
      </form>
      <ErrorNote error={check.error} />
      {results ? (
        <ul class="bulk-results">
          {results.map((r) => (
            <li key={r.name}>{'error' in r ? <span>{r.name}: {r.error.detail}</span> : <AvailabilityLine result={r} onChoose={onChoose} />}</li>
          ))}
        </ul>
      ) : null}
    </article>
  );
}

function DomainList({ orgId }: { orgId: string }) {
  const { client } = useDashboard();
  const pages = useCursorPages([orgId, client]);
  const domains = useLoad(
    (signal) => client.listDomains({ path: { org_oid: orgId }, query: { limit: 20, ...(pages.cursor ? { cursor: pages.cursor } : {}) } }, { signal }),
    [client, orgId, pages.cursor],
  );
  const [, navigate] = useLocation();
  return (
    <>
      <h2>Your domains</h2>
      <ErrorNote error={domains.error} />
      {domains.data && domains.data.data.length === 0 ? <Empty>No domains yet: check a name above and register it.</Empty> : null}
      {domains.data && domains.data.data.length > 0 ? (
        <TableScroll label="Domains">
          <table class="striped" aria-label="Domains">
            <thead>
              <tr>
                <th>Name</th>
                <th>Status</th>
                <th>Expires</th>
                <th>Auto-renew</th>
              </tr>
            </thead>
            <tbody>
              {domains.data.data.map((d) => (
                <tr key={d.name} class="clickable" onClick={() => navigate(`/domains/${encodeURIComponent(d.name)}`)}>
                  <td>
                    <Link href={`/domains/${encodeURIComponent(d.name)}`}>{d.name}</Link>
                  </td>
                  <td>
                    <StatusBadge status={d.status} />
                  </td>
                  <td>{formatDay(d.expires_at)}</td>
                  <td>{d.auto_renew ? 'on' : 'off'}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </TableScroll>
      ) : null}
      <Pager page={pages.page} nextCursor={domains.data?.next_cursor} onNext={pages.next} onPrevious={pages.previous} />
    </>
  );
}
