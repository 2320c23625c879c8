import { useDashboard } from '../context.js';
import { ErrorNote } from '../errors.js';
import { formatDate } from '../format.js';
import { useCursorPages, useLoad } from '../hooks.js';
import { Empty, Pager, TableScroll } from '../components/ui.js';

/** Who did what in the organisation, newest first (owners and admins: the API refuses members). */
export function AuditLog({ orgId, orgName }: { orgId: string; orgName: string }) {
  const { client, mode } = useDashboard();
  const pages = useCursorPages([orgId]);
  const entries = useLoad(
    (signal) => client.listAuditLog({ path: { org_oid: orgId }, query: { limit: 25, ...(pages.cursor ? { cursor: pages.cursor } : {}) } }, { signal }),
    [client, orgId, pages.cursor],
  );
  return (
    <>
      <h2>Audit log of {orgName}</h2>
      <p>
        <small>{mode === 'test' ? 'Test-mode' : 'Live-mode'} entries (the Test data switch picks the mode); entries are kept one year.</small>
      </p>
      <ErrorNote error={entries.error} />
      {entries.data && entries.data.data.length === 0 ? <Empty>Nothing recorded yet.</Empty> : null}
      <TableScroll label="Audit log">
        <table class="striped" aria-label="Audit log">
          <thead>
            <tr>
              <th>When</th>
              <th>Action</th>
              <th>By</th>
              <th>Target</th>
              <th>Mode</th>
            </tr>
          </thead>
          <tbody>
            {(entries.data?.data ?? []).map((e) => (
              <tr key={e.id}>
                <td>{formatDate(e.created_at)}</td>
                <td>
                  <code>{e.action}</code>
                </td>
                <td>{e.actor.type === 'system' ? 'the service' : `${e.actor.type === 'api_key' ? 'API key' : 'user'} ${e.actor.id ?? ''}`}</td>
                <td>{e.target.name ?? `${e.target.type} ${e.target.id}`}</td>
                <td>{e.livemode ? 'live' : 'test'}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </TableScroll>
      <Pager page={pages.page} nextCursor={entries.data?.next_cursor} onNext={pages.next} onPrevious={pages.previous} />
    </>
  );
}
