import { useState } from 'preact/hooks';
import type { components } from '../../../client/src/index.js';
import { useDashboard } from '../context.js';
import { ErrorNote, fieldError } from '../errors.js';
import { formatDate } from '../format.js';
import { useAction, useLoad } from '../hooks.js';
import { ActionsHeader, ConfirmButton, Empty, Field, StatusBadge, TableScroll } from '../components/ui.js';

type DomainMove = components['schemas']['DomainMove'];

/** An organisation's id as the API makes it: what the field accepts before anything is sent. */
const ORG_ID = /^org_[0-9A-Za-z]{22}$/;
const ORG_ID_HELP = "The id its owners see on their Organisations page (org_…); you need not belong to it.";

/**
 * On a domain's page: hand it to another organisation, named by its id (any organisation: a
 * client's, say; the user's own are offered as suggestions). The target's owner or admin accepts.
 */
export function MoveDomain({ orgId, domain }: { orgId: string; domain: string }) {
  const { client, orgs } = useDashboard();
  const suggestions = orgs.filter((o) => o.id !== orgId);
  const [toOrgId, setToOrgId] = useState('');
  const [invalid, setInvalid] = useState<string | undefined>(undefined);
  const [proposed, setProposed] = useState<DomainMove | undefined>(undefined);
  const propose = useAction();
  const submit = async (event: Event) => {
    event.preventDefault();
    const id = toOrgId.trim();
    if (!ORG_ID.test(id)) {
      setInvalid('Enter an organisation id: org_ followed by 22 letters or digits, as its owners copy it from their Organisations page.');
      return;
    }
    setInvalid(undefined);
    const move = await propose.run(() => client.proposeDomainMove({ path: { org_oid: orgId, domain }, body: { to_org_id: id } }));
    if (move) setProposed(move);
  };
  const error = invalid ?? fieldError(propose.error, 'to_org_id');
  return (
    <article>
      <header>
        <strong>Move to another organisation</strong>
      </header>
      <form class="inline-form" onSubmit={(e) => void submit(e)} aria-label="Move to another organisation" noValidate>
        <Field label="Target organisation id" error={error} hint={ORG_ID_HELP}>
          <input
            name="to-org-id"
            value={toOrgId}
            list={suggestions.length > 0 ? 'move-target-suggestions' : undefined}
            autocomplete="off"
            spellcheck={false}
            placeholder="org_…"
            aria-invalid={error ? 'true' : undefined}
            onInput={(e) => setToOrgId(e.currentTarget.value)}
          />
        </Field>
        {suggestions.length > 0 ? (
          <datalist id="move-target-suggestions">
            {suggestions.map((o) => (
              <option key={o.id} value={o.id} label={o.name} />
            ))}
          </datalist>
        ) : null}
        <button type="submit" class="secondary" aria-busy={propose.busy ? 'true' : undefined}>
          Propose move
        </button>
      </form>
      <ErrorNote error={fieldError(propose.error, 'to_org_id') ? undefined : propose.error} />
      {proposed ? (
        <p role="status">
          Move proposed: an owner or admin of {targetName(proposed, orgs)} can accept it until {formatDate(proposed.expires_at)}. Nothing changes until then.
        </p>
      ) : (
        <p>Its records, renewals and notices go with it; nothing is charged.</p>
      )}
    </article>
  );
}

/**
 * The target as the source may name it: the API gives its name only once the target has answered
 * (a proposal does not tell whether the organisation exists); the user's own organisations are
 * known by name all the same.
 */
function targetName(move: DomainMove, orgs: { id: string; name: string }[]): string {
  return move.to_org.name ?? orgs.find((o) => o.id === move.to_org.id)?.name ?? `organisation ${move.to_org.id}`;
}

/** On the organisations page: the current organisation's moves out and in, with Accept and Cancel while pending. */
export function DomainMoves({ orgId, canDecide }: { orgId: string; canDecide: boolean }) {
  return (
    <>
      <MoveList orgId={orgId} direction="incoming" canDecide={canDecide} />
      <MoveList orgId={orgId} direction="outgoing" canDecide={canDecide} />
    </>
  );
}

function MoveList({ orgId, direction, canDecide }: { orgId: string; direction: 'incoming' | 'outgoing'; canDecide: boolean }) {
  const { client, orgs } = useDashboard();
  const moves = useLoad((signal) => client.listDomainMoves({ path: { org_oid: orgId }, query: { direction, limit: 50 } }, { signal }), [client, orgId, direction]);
  const decide = useAction();
  const title = direction === 'incoming' ? 'Domains moving in' : 'Domains moving out';
  const act = async (move: DomainMove, action: 'accept' | 'cancel') => {
    const path = { org_oid: orgId, move_id: move.id };
    const done = await decide.run(() => (action === 'accept' ? client.acceptDomainMove({ path }) : client.cancelDomainMove({ path })));
    if (done) moves.reload();
  };
  return (
    <article>
      <header>
        <strong>{title}</strong>
      </header>
      <ErrorNote error={moves.error ?? decide.error} />
      {moves.data && moves.data.data.length === 0 ? <Empty>None.</Empty> : null}
      {moves.data && moves.data.data.length > 0 ? (
        <TableScroll label={title}>
          <table class="striped" aria-label={title}>
            <thead>
              <tr>
                <th>Domain</th>
                <th>{direction === 'incoming' ? 'From' : 'To'}</th>
                <th>Status</th>
                <th>Expires</th>
                <ActionsHeader />
              </tr>
            </thead>
            <tbody>
              {moves.data.data.map((m) => (
                <tr key={m.id}>
                  <td>{m.domain}</td>
                  <td>{direction === 'incoming' ? m.from_org.name : targetName(m, orgs)}</td>
                  <td>
                    <StatusBadge status={m.status} />
                  </td>
                  <td>{formatDate(m.expires_at)}</td>
                  <td>
                    {m.status === 'pending' && canDecide ? (
                      <>
                        {direction === 'incoming' ? (
                          <button type="button" class="small" aria-label={`Accept ${m.domain}`} onClick={() => void act(m, 'accept')}>
                            Accept
                          </button>
                        ) : null}{' '}
                        <ConfirmButton label="Cancel move" question={`Cancel the move of ${m.domain}?`} confirmLabel="Yes, cancel it" onConfirm={() => void act(m, 'cancel')} />
                      </>
                    ) : null}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </TableScroll>
      ) : null}
    </article>
  );
}
