import { useState } from 'preact/hooks';
import { Link, useLocation } from 'wouter-preact';
import { realAnswer, type components } from '../../../client/src/index.js';
import { useDashboard } from '../context.js';
import { ErrorNote, fieldError } from '../errors.js';
import { formatDate, formatDay } from '../format.js';
import { useAction, useLoad } from '../hooks.js';
import { Field, NeedsOrganisation, StatusBadge } from '../components/ui.js';
import { RecordsEditor } from './records.js';
import { EmailForwards } from './emailForwards.js';
import { MoveDomain } from './domainMoves.js';

type Domain = components['schemas']['Domain'];

export function DomainPage({ name }: { name: string }) {
  const { client, org } = useDashboard();
  const domain = useLoad((signal) => (org ? client.getDomain({ path: { org_oid: org.id, domain: name } }, { signal }) : Promise.resolve(undefined)), [client, org?.id, name]);
  // A domain's first e-mail forward and its last one change its records: the editor reads them again.
  const [recordsRead, setRecordsRead] = useState(0);
  if (!org) return <NeedsOrganisation />;
  return (
    <section>
      <nav aria-label="breadcrumb">
        <ul>
          <li>
            <Link href="/domains">Domains</Link>
          </li>
          <li>{name}</li>
        </ul>
      </nav>
      <h1>{name}</h1>
      <ErrorNote error={domain.error} />
      {domain.data ? (
        <>
          <Summary domain={domain.data} />
          <div class="grid two">
            <Settings key={domain.data.version} orgId={org.id} domain={domain.data} onSaved={domain.reload} />
            <div>
              <Renew orgId={org.id} domain={domain.data} />
              <AuthCode orgId={org.id} domain={domain.data} />
              {domain.data.status === 'active' || domain.data.status === 'expired' ? <MoveDomain orgId={org.id} domain={domain.data.name} /> : null}
            </div>
          </div>
          {domain.data.status === 'active' ? (
            <>
              <RecordsEditor key={recordsRead} orgId={org.id} domain={domain.data.name} />
              <EmailForwards orgId={org.id} domain={domain.data.name} onRecordsChanged={() => setRecordsRead((n) => n + 1)} />
            </>
          ) : (
            <p>DNS records can be edited once the domain is active.</p>
          )}
        </>
      ) : null}
    </section>
  );
}

function Summary({ domain }: { domain: Domain }) {
  return (
    <dl class="summary">
      <div>
        <dt>Status</dt>
        <dd>
          <StatusBadge status={domain.status} />
        </dd>
      </div>
      <div>
        <dt>Expires</dt>
        <dd>{formatDay(domain.expires_at)}</dd>
      </div>
      <div>
        <dt>WHOIS privacy</dt>
        <dd data-testid="whois-privacy">{domain.whois_privacy ? 'on' : 'off'}</dd>
      </div>
      <div>
        <dt>Mode</dt>
        <dd>{domain.livemode ? 'live' : 'test'}</dd>
      </div>
      <div>
        <dt>Registered</dt>
        <dd>{formatDate(domain.created_at)}</dd>
      </div>
    </dl>
  );
}

function Settings({ orgId, domain, onSaved }: { orgId: string; domain: Domain; onSaved: () => void }) {
  const { client } = useDashboard();
  const [autoRenew, setAutoRenew] = useState(domain.auto_renew);
  const [locked, setLocked] = useState(domain.locked);
  const [whoisPrivacy, setWhoisPrivacy] = useState(domain.whois_privacy);
  const [nameservers, setNameservers] = useState(domain.nameservers.join('\n'));
  const save = useAction();
  const submit = async (event: Event) => {
    event.preventDefault();
    const list = nameservers.split(/\s+/).filter(Boolean);
    // Only what changed: an untouched setting is not sent (an empty name-server list is not a change).
    const body = {
      ...(autoRenew !== domain.auto_renew ? { auto_renew: autoRenew } : {}),
      ...(locked !== domain.locked ? { locked } : {}),
      ...(whoisPrivacy !== domain.whois_privacy ? { whois_privacy: whoisPrivacy } : {}),
      ...(list.join(' ') !== domain.nameservers.join(' ') ? { nameservers: list } : {}),
    };
    const saved = await save.run(() =>
      client.updateDomain({ path: { org_oid: orgId, domain: domain.name }, header: { 'if-match': `"${domain.version}"` }, body }),
    );
    if (saved) onSaved();
  };
  return (
    <article>
      <header>
        <strong>Settings</strong>
      </header>
      <form onSubmit={(e) => void submit(e)} aria-label="Domain settings">
        <label>
          <input type="checkbox" role="switch" checked={autoRenew} onChange={(e) => setAutoRenew(e.currentTarget.checked)} />
          Auto-renew
        </label>
        <label>
          <input type="checkbox" role="switch" checked={locked} onChange={(e) => setLocked(e.currentTarget.checked)} />
          Transfer lock
        </label>
        <label>
          <input
            type="checkbox"
            role="switch"
            checked={whoisPrivacy}
            aria-describedby="whois-privacy-hint"
            onChange={(e) => setWhoisPrivacy(e.currentTarget.checked)}
          />
          WHOIS privacy
        </label>
        <small id="whois-privacy-hint">Hides the registrant's name and address in public WHOIS. The registrar changes it when you save.</small>
        <Field label="Name servers (one per line)" error={fieldError(save.error, 'nameservers')}>
          <textarea name="nameservers" rows={3} value={nameservers} onInput={(e) => setNameservers(e.currentTarget.value)} />
        </Field>
        <ErrorNote error={fieldError(save.error, 'nameservers') ? undefined : save.error} />
        <button type="submit" class="secondary" aria-busy={save.busy ? 'true' : undefined}>
          Save settings
        </button>
      </form>
    </article>
  );
}

function Renew({ orgId, domain }: { orgId: string; domain: Domain }) {
  const { client } = useDashboard();
  const [years, setYears] = useState(1);
  const renew = useAction();
  const [, navigate] = useLocation();
  const submit = async (event: Event) => {
    event.preventDefault();
    const answer = await renew.run(async () => realAnswer(await client.renewDomain({ path: { org_oid: orgId, domain: domain.name }, body: { years } })));
    if (answer) navigate(`/operations/${'operation_id' in answer ? answer.operation_id : answer.id}`);
  };
  return (
    <article>
      <header>
        <strong>Renew</strong>
      </header>
      <form class="inline-form" onSubmit={(e) => void submit(e)} aria-label="Renew">
        <Field label="Years" error={fieldError(renew.error, 'years')}>
          <input type="number" name="renew-years" min={1} max={10} value={years} onInput={(e) => setYears(Number(e.currentTarget.value) || 1)} />
        </Field>
        <button type="submit" aria-busy={renew.busy ? 'true' : undefined}>
          Renew
        </button>
      </form>
      <ErrorNote error={fieldError(renew.error, 'years') ? undefined : renew.error} />
    </article>
  );
}

function AuthCode({ orgId, domain }: { orgId: string; domain: Domain }) {
  const { client } = useDashboard();
  const [code, setCode] = useState<components['schemas']['AuthCode'] | undefined>(undefined);
  const fetchCode = useAction();
  return (
    <article>
      <header>
        <strong>Transfer out</strong>
      </header>
      <p>To move this domain to another registrar, unlock it and give them the auth code.</p>
      <button type="button" class="secondary" aria-busy={fetchCode.busy ? 'true' : undefined} onClick={() => void fetchCode.run(() => client.getAuthCode({ path: { org_oid: orgId, domain: domain.name } })).then(setCode)}>
        Show auth code
      </button>
      <ErrorNote error={fetchCode.error} />
      {code ? <p>{code.auth_code ? <code>{code.auth_code}</code> : 'The registrar e-mailed the code to the admin contact.'}</p> : null}
    </article>
  );
}
