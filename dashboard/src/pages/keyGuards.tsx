import { useState } from 'preact/hooks';
import type { components } from '../../../client/src/index.js';
import { useDashboard } from '../context.js';
import { ErrorNote, fieldError } from '../errors.js';
import { formatMoney, lines } from '../format.js';
import { useAction } from '../hooks.js';
import { Field } from '../components/ui.js';
import { centsFrom, dollarsFrom } from './billingGuards.js';

type ApiKey = components['schemas']['ApiKey'];
type KeyGuards = components['schemas']['UpdateApiKeyInput'];

/** What a person types into the guard fields: dollars and one entry a line. */
export interface GuardDraft {
  limit: string;
  ips: string;
  domains: string;
  records: string;
}

export const EMPTY_GUARDS: GuardDraft = { limit: '', ips: '', domains: '', records: '' };

export function guardsFrom(draft: GuardDraft): Required<KeyGuards> {
  return { monthly_spend_limit: centsFrom(draft.limit), allowed_ips: lines(draft.ips), allowed_domains: lines(draft.domains), allowed_records: lines(draft.records) };
}

function draftOf(key: ApiKey): GuardDraft {
  return {
    limit: dollarsFrom(key.monthly_spend_limit),
    ips: key.allowed_ips.join('\n'),
    domains: key.allowed_domains.join('\n'),
    records: key.allowed_records.join('\n'),
  };
}

/** The field an API 422 names, even when it points at one line (`allowed_ips.2`). */
function guardError(error: unknown, field: string): string | undefined {
  if (fieldError(error, field)) return fieldError(error, field);
  for (let line = 0; line < 50; line += 1) {
    const message = fieldError(error, field, line);
    if (message) return `line ${line + 1}: ${message}`;
  }
  return undefined;
}

export function hasGuardError(error: unknown): boolean {
  return ['monthly_spend_limit', 'allowed_ips', 'allowed_domains', 'allowed_records'].some((field) => guardError(error, field) !== undefined);
}

/**
 * The optional guards of a key: a monthly spending limit, where it may be used from, which domains it
 * may act on, and the only DNS records it may change.
 */
export function GuardFields(props: { draft: GuardDraft; onChange: (draft: GuardDraft) => void; error: unknown }) {
  const { draft, onChange, error } = props;
  return (
    <>
      <div class="grid">
        <Field label="Monthly spending limit (USD)" error={guardError(error, 'monthly_spend_limit')} hint="Empty: no limit">
          <input type="number" name="monthly_spend_limit" min="0" step="0.01" value={draft.limit} onInput={(e) => onChange({ ...draft, limit: e.currentTarget.value })} />
        </Field>
        <Field label="Allowed IP ranges" error={guardError(error, 'allowed_ips')} hint="CIDRs, one a line; empty: anywhere">
          <textarea name="allowed_ips" rows={3} placeholder="203.0.113.0/24" value={draft.ips} onInput={(e) => onChange({ ...draft, ips: e.currentTarget.value })} />
        </Field>
        <Field label="Allowed domains" error={guardError(error, 'allowed_domains')} hint="Names or *.suffix, one a line; empty: any domain">
          <textarea name="allowed_domains" rows={3} placeholder="*.example.com" value={draft.domains} onInput={(e) => onChange({ ...draft, domains: e.currentTarget.value })} />
        </Field>
      </div>
      <Field label="Allowed DNS records" error={guardError(error, 'allowed_records')} hint="name:TYPE, one a line, * for labels; then nothing but these records. Empty: any">
        <textarea
          name="allowed_records"
          rows={Math.min(8, Math.max(2, lines(draft.records).length))}
          placeholder="_acme-challenge.example.com:TXT"
          value={draft.records}
          onInput={(e) => onChange({ ...draft, records: e.currentTarget.value })}
        />
      </Field>
    </>
  );
}

/** A key's guards as the list shows them. */
export function GuardSummary({ apiKey }: { apiKey: ApiKey }) {
  return (
    <ul class="key-guards">
      <li>Limit: {apiKey.monthly_spend_limit === null ? 'none' : `${formatMoney(apiKey.monthly_spend_limit)} a month`}</li>
      <li>IPs: {apiKey.allowed_ips.length === 0 ? 'any' : apiKey.allowed_ips.join(', ')}</li>
      <li>Domains: {apiKey.allowed_domains.length === 0 ? 'any' : apiKey.allowed_domains.join(', ')}</li>
      {apiKey.allowed_records.length === 0 ? null : <li>Records only: {apiKey.allowed_records.join(', ')}</li>}
    </ul>
  );
}

/** Changes an existing key's guards (`PATCH /me/api-keys/{key_id}`); its scopes and secret stay. */
export function EditGuards(props: { apiKey: ApiKey; onSaved: () => void }) {
  const { client } = useDashboard();
  const [draft, setDraft] = useState<GuardDraft | undefined>(undefined);
  const save = useAction();
  if (!draft)
    return (
      <button type="button" class="secondary" onClick={() => setDraft(draftOf(props.apiKey))}>
        Edit limits
      </button>
    );
  const submit = async (event: Event) => {
    event.preventDefault();
    const done = await save.run(() => client.updateApiKey({ path: { key_id: props.apiKey.id }, body: guardsFrom(draft) }));
    if (done) {
      setDraft(undefined);
      props.onSaved();
    }
  };
  return (
    <form onSubmit={(e) => void submit(e)} aria-label={`Limits of ${props.apiKey.name}`}>
      <GuardFields draft={draft} onChange={setDraft} error={save.error} />
      <ErrorNote error={hasGuardError(save.error) ? undefined : save.error} />
      <button type="submit" aria-busy={save.busy ? 'true' : undefined}>
        Save limits
      </button>
      <button type="button" class="secondary" onClick={() => setDraft(undefined)}>
        Cancel
      </button>
    </form>
  );
}
