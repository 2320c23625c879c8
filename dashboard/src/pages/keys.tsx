import { useState } from 'preact/hooks';
import type { components } from '../../../client/src/index.js';
import { useDashboard } from '../context.js';
import { ErrorNote, fieldError } from '../errors.js';
import { formatDate } from '../format.js';
import { useAction, useCursorPages, useLoad } from '../hooks.js';
import { ActionsHeader, ConfirmButton, Empty, Field, Pager, StatusBadge, TableScroll } from '../components/ui.js';
import { SecretOnce } from '../components/secretOnce.js';
import { EditGuards, EMPTY_GUARDS, GuardFields, GuardSummary, guardsFrom, hasGuardError, type GuardDraft } from './keyGuards.js';

type Scope = components['schemas']['ApiKey']['scopes'][number];
type PresetId = components['schemas']['ApiKeyPresets']['data'][number]['id'];
type CreatedKey = components['schemas']['CreatedApiKey'];

/** Every scope, grouped by resource as the boxes show them (src/auth/scopes.ts holds the same set). */
const SCOPE_GROUPS: [string, Scope[]][] = [
  ['Domains', ['domains:read', 'domains:write']],
  ['DNS', ['dns:read', 'dns:write']],
  ['Contacts', ['contacts:read', 'contacts:write']],
  ['Billing', ['billing:read', 'billing:write']],
  ['Organisations', ['orgs:read', 'orgs:write']],
  ['API keys', ['keys:read', 'keys:write']],
];

const PRESET_LABELS: Record<PresetId, string> = { ci: 'CI', monitoring: 'Monitoring', registrar_tooling: 'Registrar tooling', certificates: 'Certificates' };

/** The DNS-01 challenge records of these domains: their own and every name's under them (docs/api-guide.md, Certificates). */
export function challengeRecords(domains: string[]): string {
  return domains.flatMap((name) => [`_acme-challenge.${name}:TXT`, `_acme-challenge.*.${name}:TXT`]).join('\n');
}

export function KeysPage() {
  const { client, mode } = useDashboard();
  const pages = useCursorPages([client]);
  const keys = useLoad((signal) => client.listApiKeys({ query: { limit: 20, ...(pages.cursor ? { cursor: pages.cursor } : {}) } }, { signal }), [client, pages.cursor]);
  const [created, setCreated] = useState<CreatedKey | undefined>(undefined);
  const remove = useAction();

  return (
    <section>
      <h1>API keys</h1>
      <p>Keys let scripts and services call the API as you, limited to the scopes you tick. Test keys see only test data and never reach the registrar.</p>
      {created ? (
        <SecretOnce
          label="New key secret"
          title={`Key “${created.name}” created`}
          secret={created.key}
          testId="key-secret"
          warning="Copy this secret now and store it in a secrets manager (for example your CI's encrypted secrets or a vault). It is shown only this once: we keep only a hash and cannot show it again."
          onDone={() => setCreated(undefined)}
        />
      ) : null}
      <CreateKeyForm
        defaultTest={mode === 'test'}
        onCreated={(key) => {
          setCreated(key);
          keys.reload();
        }}
      />
      <h2>Your keys</h2>
      <ErrorNote error={keys.error ?? remove.error} />
      {keys.data && keys.data.data.length === 0 ? <Empty>No keys yet.</Empty> : null}
      {keys.data && keys.data.data.length > 0 ? (
        <TableScroll label="API keys">
          <table class="striped" aria-label="API keys">
            <thead>
              <tr>
                <th>Name</th>
                <th>Prefix</th>
                <th>Mode</th>
                <th>Scopes</th>
                <th>Limits</th>
                <th>Status</th>
                <th>Last used</th>
                <ActionsHeader />
              </tr>
            </thead>
            <tbody>
              {keys.data.data.map((key) => (
                <tr key={key.id}>
                  <td>{key.name}</td>
                  <td>
                    <code>{key.prefix}…</code>
                  </td>
                  <td>
                    <StatusBadge status={key.mode} />
                  </td>
                  <td class="scopes">{key.scopes.join(', ')}</td>
                  <td>
                    <GuardSummary apiKey={key} />
                    {key.status === 'active' ? <EditGuards apiKey={key} onSaved={keys.reload} /> : null}
                  </td>
                  <td>
                    <StatusBadge status={key.status} />
                  </td>
                  <td>{key.last_used_at ? formatDate(key.last_used_at) : 'never'}</td>
                  <td>
                    {key.status === 'active' ? (
                      <ConfirmButton
                        label="Delete"
                        question={`Delete “${key.name}”? Anything using it stops working at once.`}
                        busy={remove.busy}
                        onConfirm={() => void remove.run(() => client.deleteApiKey({ path: { key_id: key.id } })).then(keys.reload)}
                      />
                    ) : null}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </TableScroll>
      ) : null}
      <Pager page={pages.page} nextCursor={keys.data?.next_cursor} onNext={pages.next} onPrevious={pages.previous} />
    </section>
  );
}

function CreateKeyForm(props: { defaultTest: boolean; onCreated: (key: CreatedKey) => void }) {
  const { client, org } = useDashboard();
  const presets = useLoad((signal) => client.listApiKeyPresets(undefined, { signal }), [client]);
  const [name, setName] = useState('');
  const [test, setTest] = useState(props.defaultTest);
  const [preset, setPreset] = useState<PresetId | 'custom'>('custom');
  const [scopes, setScopes] = useState<Set<Scope>>(new Set());
  const [guards, setGuards] = useState<GuardDraft>(EMPTY_GUARDS);
  const create = useAction();

  const choosePreset = (id: PresetId | 'custom') => {
    setPreset(id);
    const found = presets.data?.data.find((p) => p.id === id);
    if (found) setScopes(new Set(found.scopes));
    if (id === 'certificates') void fillChallengeRecords();
  };
  // The certificates preset is its allowed records: the challenge records of the organisation's active domains.
  const fillChallengeRecords = async () => {
    const page = org ? await client.listDomains({ path: { org_oid: org.id }, query: { limit: 100 } }).catch(() => undefined) : undefined;
    const names = (page?.data ?? []).filter((d) => d.status === 'active').map((d) => d.name);
    setGuards((draft) => ({ ...draft, records: challengeRecords(names) }));
  };
  const toggleScope = (scope: Scope, on: boolean) => {
    const next = new Set(scopes);
    if (on) next.add(scope);
    else next.delete(scope);
    setScopes(next);
  };
  const submit = async (event: Event) => {
    event.preventDefault();
    const key = await create.run(() => client.createApiKey({ body: { name, scopes: [...scopes], mode: test ? 'test' : 'live', ...guardsFrom(guards) } }));
    if (key) {
      setName('');
      setGuards(EMPTY_GUARDS);
      props.onCreated(key);
    }
  };

  return (
    <article>
      <header>
        <strong>New key</strong>
      </header>
      <form onSubmit={(e) => void submit(e)} aria-label="New API key">
        <div class="grid">
          <Field label="Name" error={fieldError(create.error, 'name')}>
            <input name="name" value={name} required maxLength={100} placeholder="e.g. GitHub Actions deploy" aria-invalid={fieldError(create.error, 'name') ? 'true' : undefined} onInput={(e) => setName(e.currentTarget.value)} />
          </Field>
          <fieldset>
            <legend>Mode</legend>
            <label>
              <input type="checkbox" role="switch" name="test" checked={test} onChange={(e) => setTest(e.currentTarget.checked)} />
              Test-mode key (svc_test_…)
            </label>
          </fieldset>
        </div>
        <fieldset>
          <legend>Use case</legend>
          <div class="preset-row" role="radiogroup" aria-label="Preset">
            {(presets.data?.data ?? []).map((p) => (
              <label key={p.id}>
                <input type="radio" name="preset" value={p.id} checked={preset === p.id} onChange={() => choosePreset(p.id)} />
                {PRESET_LABELS[p.id]}
              </label>
            ))}
            <label>
              <input type="radio" name="preset" value="custom" checked={preset === 'custom'} onChange={() => choosePreset('custom')} />
              Custom
            </label>
          </div>
          {preset === 'certificates' ? (
            <small data-testid="certificates-note">
              For ACME clients (lego, Caddy, cert-manager, certbot) answering DNS-01 challenges: the key may change only the
              allowed DNS records below, filled with the <code>_acme-challenge</code> TXT records of this organisation’s domains,
              and nothing else. Edit them to the names you get certificates for.
            </small>
          ) : null}
        </fieldset>
        <fieldset>
          <legend>Scopes {preset !== 'custom' ? <small>(pre-filled by the preset; change them as you need)</small> : null}</legend>
          <div class="scope-grid">
            {SCOPE_GROUPS.map(([group, groupScopes]) => (
              <div key={group}>
                <strong>{group}</strong>
                {groupScopes.map((scope) => (
                  <label key={scope}>
                    <input type="checkbox" name="scope" value={scope} checked={scopes.has(scope)} onChange={(e) => toggleScope(scope, e.currentTarget.checked)} />
                    {scope.split(':')[1]}
                  </label>
                ))}
              </div>
            ))}
          </div>
          {fieldError(create.error, 'scopes') ? <small class="field-error">{fieldError(create.error, 'scopes')}</small> : null}
        </fieldset>
        <fieldset>
          <legend>
            Limits <small>(optional)</small>
          </legend>
          <GuardFields draft={guards} onChange={setGuards} error={create.error} />
        </fieldset>
        <ErrorNote error={create.error && !fieldError(create.error, 'name') && !fieldError(create.error, 'scopes') && !hasGuardError(create.error) ? create.error : undefined} />
        <button type="submit" aria-busy={create.busy ? 'true' : undefined} disabled={create.busy || scopes.size === 0}>
          Create key
        </button>
      </form>
    </article>
  );
}
