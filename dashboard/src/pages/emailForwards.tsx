import { useState } from 'preact/hooks';
import { useDashboard } from '../context.js';
import { ErrorNote } from '../errors.js';
import { formatDate, lines } from '../format.js';
import { useAction, useLoad } from '../hooks.js';
import { ActionsHeader, ConfirmButton, Empty, Field, TableScroll } from '../components/ui.js';

/**
 * A domain's e-mail forwards (docs/api-guide.md, E-mail forwarding): listed, added (the first also
 * sets the domain's MX, SPF and DMARC records, which the page names), deleted.
 */
export function EmailForwards({ orgId, domain, onRecordsChanged }: { orgId: string; domain: string; onRecordsChanged?: () => void }) {
  const { client } = useDashboard();
  const forwards = useLoad((signal) => client.listEmailForwards({ path: { org_oid: orgId, domain } }, { signal }), [client, orgId, domain]);
  const [localPart, setLocalPart] = useState('');
  const [to, setTo] = useState('');
  const [note, setNote] = useState<string | undefined>(undefined);
  const create = useAction();
  const remove = useAction();
  const submit = async (event: Event) => {
    event.preventDefault();
    const forward = await create.run(() => client.createEmailForward({ path: { org_oid: orgId, domain }, body: { local_part: localPart, to: lines(to) } }));
    if (forward) {
      setLocalPart('');
      setTo('');
      setNote(forward.records.length > 0 ? `Added ${forward.records.map((r) => `${r.type} ${r.name}`).join(', ')} so that mail for ${domain} reaches us.` : undefined);
      forwards.reload();
      onRecordsChanged?.();
    }
  };
  return (
    <article>
      <header>
        <h2>E-mail forwarding</h2>
      </header>
      <p>Mail for an address of {domain} goes on to the addresses you give, its sender rewritten (SRS) so that it is not refused as forged.</p>
      {note ? <p role="status">{note}</p> : null}
      <ErrorNote error={forwards.error ?? remove.error} />
      {forwards.data && forwards.data.data.length === 0 ? <Empty>No addresses forwarded yet.</Empty> : null}
      {forwards.data && forwards.data.data.length > 0 ? (
        <TableScroll label="E-mail forwards">
          <table class="striped" aria-label="E-mail forwards">
            <thead>
              <tr>
                <th>Address</th>
                <th>Forwarded to</th>
                <th>Created</th>
                <ActionsHeader />
              </tr>
            </thead>
            <tbody>
              {forwards.data.data.map((forward) => (
                <tr key={forward.id}>
                  <td>
                    <code>{forward.address}</code>
                  </td>
                  <td>{forward.to.join(', ')}</td>
                  <td>{formatDate(forward.created_at)}</td>
                  <td>
                    <ConfirmButton
                      label="Delete"
                      question={`Stop forwarding ${forward.address}? Its mail is refused from then on.`}
                      busy={remove.busy}
                      onConfirm={() =>
                        void remove.run(() => client.deleteEmailForward({ path: { org_oid: orgId, domain, forward_id: forward.id } })).then(() => {
                          forwards.reload();
                          onRecordsChanged?.();
                        })
                      }
                    />
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </TableScroll>
      ) : null}
      <form onSubmit={(e) => void submit(e)} aria-label="New e-mail forward">
        <div class="grid two">
          <Field label="Address" hint={`The part before @${domain}, or * for every address without its own`}>
            <input name="local_part" required value={localPart} placeholder="hello" onInput={(e) => setLocalPart(e.currentTarget.value)} />
          </Field>
          <Field label="Forward to" hint="Up to 10 addresses, one a line">
            <textarea name="to" rows={2} required value={to} placeholder="you@example.org" onInput={(e) => setTo(e.currentTarget.value)} />
          </Field>
        </div>
        <ErrorNote error={create.error} />
        <button type="submit" aria-busy={create.busy ? 'true' : undefined} disabled={create.busy}>
          Forward
        </button>
      </form>
    </article>
  );
}
