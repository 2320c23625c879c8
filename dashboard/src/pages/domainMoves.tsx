import { useState } from 'preact/hooks';
import type { components } from '../../../client/src/index.js';
import { useDashboard } from '../context.js';
import { ErrorNote, fieldError } from '../errors.js';
import { formatDate } from '../format.js';
import { useAction, useLoad } from '../hooks.js';
import { ActionsHeader, ConfirmButton, Empty, Field, StatusBadge, TableScroll } from '../components/ui.js';

type DomainMove = components['schemas']['DomainMove'];

/** On a domain's page: hand it to another organisation the user belongs to (the target's owner or admin accepts). */
export function MoveDomain({ orgId, domain }: { orgId: string; domain: string }) {
  const { client, orgs } = useDashboard();
  const targets = orgs.filter((o) => o.id !== orgId);
  const [toOrgId, setToOrgId] = useState(targets[0]?.id ?? '');
  const [proposed, setProposed] = useState<DomainMove | undefined>(undefined);
  const propose = useAction();
  const submit = async (event: Event) => {
    event.preventDefault();
    const move = await propose.run(() => client.proposeDomainMove({ path: { org_oid: orgId, domain }, body: { to_org_id: toOrgId } }));
    if (move) setProposed(move);
  };
  return (
    <article>
      <header>
        <strong>Move to another organisation</strong>
      </header>
      {targets.length === 0 ? (
        <p>You belong to no other organisation to move it to.</p>
      ) : (
        <form class="inline-form" onSubmit={(e) => void submit(e)} aria-label="Move to another organisation">
          <Field label="Organisation" error={fieldError(propose.error, 'to_org_id')}>
            <select name="to-org" value={toOrgId} onChange={(e) => setToOrgId(e.currentTarget.value)}>
              {targets.map((o) => (
                <option key={o.id} value={o.id}>
                  {o.name}
                </option>
              ))}
            </select>
          </Field>
          <button type="submit" class="secondary" aria-busy={propose.busy ? 'true' : undefined}>
            Propose move
          </button>
        </form>
      )}
      <ErrorNote error={fieldError(propose.error, 'to_org_id') ? undefined : propose.error} />
      {proposed ? (
        <p role="status">
          Move proposed: an owner or admin of {proposed.to_org.name} can accept it until {formatDate(proposed.expires_at)}. Nothing changes until then.
        </p>
      ) : (
        <p>Its records, renewals and notices go with it; nothing is charged.</p>
      )}
    </article>
  );
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
  const { client } = useDashboard();
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
                  <td>{direction === 'incoming' ? m.from_org.name : m.to_org.name}</td>
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
