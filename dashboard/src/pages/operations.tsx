import { useEffect, useState } from 'preact/hooks';
import { Link } from 'wouter-preact';
import type { Operation } from '../../../client/src/index.js';
import { useDashboard } from '../context.js';
import { ErrorNote } from '../errors.js';
import { formatDate } from '../format.js';
import { useCursorPages, useLoad } from '../hooks.js';
import { Empty, NeedsOrganisation, Pager, StatusBadge, TableScroll } from '../components/ui.js';

const TYPE_LABELS: Record<Operation['type'], string> = {
  'domain.register': 'Registration',
  'domain.transfer': 'Transfer in',
  'domain.renew': 'Renewal',
  'dnssec.enable': 'DNSSEC on',
  'dnssec.disable': 'DNSSEC off',
};
const UNFINISHED = new Set<Operation['status']>(['pending', 'running']);

export function OperationsPage() {
  const { client, org } = useDashboard();
  const pages = useCursorPages([org?.id, client]);
  const operations = useLoad(
    (signal) =>
      org ? client.listOperations({ path: { org_oid: org.id }, query: { limit: 20, ...(pages.cursor ? { cursor: pages.cursor } : {}) } }, { signal }) : Promise.resolve(undefined),
    [client, org?.id, pages.cursor],
  );
  const anyUnfinished = operations.data?.data.some((o) => UNFINISHED.has(o.status)) ?? false;
  // While something is still running, read the list again every few seconds.
  useEffect(() => {
    if (!anyUnfinished) return;
    const timer = setTimeout(operations.reload, 3_000);
    return () => clearTimeout(timer);
  }, [anyUnfinished, operations.data, operations.reload]);
  if (!org) return <NeedsOrganisation />;
  return (
    <section>
      <h1>Operations</h1>
      <p>Registrations, transfers and renewals run in the background; each one is listed here until it ends and after.</p>
      <ErrorNote error={operations.error} />
      {operations.data && operations.data.data.length === 0 ? <Empty>No operations yet.</Empty> : null}
      {operations.data && operations.data.data.length > 0 ? (
        <TableScroll label="Operations">
          <table class="striped" aria-label="Operations">
            <thead>
              <tr>
                <th>Operation</th>
                <th>Domain</th>
                <th>Status</th>
                <th>Started</th>
                <th>Ended</th>
              </tr>
            </thead>
            <tbody>
              {operations.data.data.map((o) => (
                <tr key={o.id}>
                  <td>
                    <Link href={`/operations/${o.id}`}>{TYPE_LABELS[o.type]}</Link>
                  </td>
                  <td>{o.domain}</td>
                  <td>
                    <StatusBadge status={o.status} />
                  </td>
                  <td>{formatDate(o.created_at)}</td>
                  <td>{formatDate(o.completed_at)}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </TableScroll>
      ) : null}
      <Pager page={pages.page} nextCursor={operations.data?.next_cursor} onNext={pages.next} onPrevious={pages.previous} />
    </section>
  );
}

/** One operation, followed live with the SDK's waitForOperation (which honours Retry-After) until it ends. */
export function OperationPage({ id }: { id: string }) {
  const { client, org } = useDashboard();
  const [operation, setOperation] = useState<Operation | undefined>(undefined);
  const [error, setError] = useState<unknown>(undefined);
  useEffect(() => {
    if (!org) return;
    const controller = new AbortController();
    setError(undefined);
    client.waitForOperation(org.id, id, { signal: controller.signal, timeoutMs: 30 * 60_000, onPoll: setOperation }).then(setOperation, (err: unknown) => {
      if (!controller.signal.aborted) setError(err);
    });
    return () => controller.abort();
  }, [client, org?.id, id]);
  if (!org) return <NeedsOrganisation />;
  const live = operation !== undefined && UNFINISHED.has(operation.status);
  return (
    <section>
      <nav aria-label="breadcrumb">
        <ul>
          <li>
            <Link href="/operations">Operations</Link>
          </li>
          <li>{id}</li>
        </ul>
      </nav>
      <ErrorNote error={error} />
      {operation ? (
        <article aria-live="polite">
          <header class="row-header">
            <h1>
              {TYPE_LABELS[operation.type]} of {operation.domain}
            </h1>
            <span data-testid="operation-status">
              <StatusBadge status={operation.status} />
            </span>
          </header>
          {live ? (
            <p aria-busy="true" class="live-line">
              Working on it: this page updates by itself until the operation ends.
            </p>
          ) : null}
          <OperationSteps operation={operation} />
          {operation.status === 'succeeded' ? (
            <p>
              Done. <Link href={`/domains/${encodeURIComponent(operation.domain)}`}>Open {operation.domain}</Link> to edit its DNS records.
            </p>
          ) : null}
          {operation.error ? (
            <p class="error-note" role="alert">
              {operation.error.detail} {operation.status === 'failed' ? 'Any funds held for it were released.' : ''}
            </p>
          ) : null}
          <dl class="summary">
            <div>
              <dt>Started</dt>
              <dd>{formatDate(operation.created_at)}</dd>
            </div>
            <div>
              <dt>Last update</dt>
              <dd>{formatDate(operation.updated_at)}</dd>
            </div>
            <div>
              <dt>Ended</dt>
              <dd>{formatDate(operation.completed_at)}</dd>
            </div>
            <div>
              <dt>Mode</dt>
              <dd>{operation.livemode ? 'live' : 'test'}</dd>
            </div>
          </dl>
        </article>
      ) : (
        <>
          <h1>Operation {id}</h1>
          {error ? null : <p aria-busy="true">Loading the operation…</p>}
        </>
      )}
    </section>
  );
}

const STEPS: Operation['status'][] = ['pending', 'running', 'succeeded'];

function OperationSteps({ operation }: { operation: Operation }) {
  const reached = operation.status === 'failed' || operation.status === 'cancelled' ? 1 : STEPS.indexOf(operation.status);
  return (
    <ol class="steps">
      {STEPS.map((step, i) => (
        <li key={step} class={i < reached ? 'done' : i === reached ? 'current' : ''}>
          {i === 2 && reached === 1 && !UNFINISHED.has(operation.status) ? operation.status : step}
        </li>
      ))}
    </ol>
  );
}
