import { Fragment } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import { ApiError, type components } from '../../../client/src/index.js';
import { useDashboard } from '../context.js';
import { ErrorNote } from '../errors.js';
import { useAction, useLoad } from '../hooks.js';
import { Empty, TableScroll } from '../components/ui.js';
import { RECORD_HINTS, RECORD_TYPES, TAKES_PRIORITY } from './recordHints.js';

type DnsRecord = components['schemas']['DnsRecord'];
type RecordType = DnsRecord['type'];
type BatchOperation = components['schemas']['DnsRecordBatchInput']['operations'][number];


/** One row of the editor: an existing record (maybe changed or marked for deletion) or a new one. */
interface Row {
  key: string;
  original?: DnsRecord;
  type: RecordType;
  name: string;
  content: string;
  ttl: number;
  priority: number | null;
  remove: boolean;
}

const fromRecord = (r: DnsRecord): Row => ({ key: r.id, original: r, type: r.type, name: r.name, content: r.content, ttl: r.ttl, priority: r.priority, remove: false });

function changesOf(row: Row): components['schemas']['UpdateDnsRecordInput'] | undefined {
  const o = row.original;
  if (!o) return undefined;
  const changes: components['schemas']['UpdateDnsRecordInput'] = {};
  if (row.name !== o.name) changes.name = row.name;
  if (row.content !== o.content) changes.content = row.content;
  if (row.ttl !== o.ttl) changes.ttl = row.ttl;
  if (row.priority !== o.priority) changes.priority = row.priority;
  return Object.keys(changes).length > 0 ? changes : undefined;
}

/** The rows as batch operations, each remembering which row it came from (for its errors). */
function toOperations(rows: Row[]): { operations: BatchOperation[]; rowKeys: string[] } {
  const operations: BatchOperation[] = [];
  const rowKeys: string[] = [];
  for (const row of rows) {
    if (row.original && row.remove) operations.push({ op: 'delete', id: row.original.id, if_match: row.original.version });
    else if (row.original) {
      const changes = changesOf(row);
      if (!changes) continue;
      operations.push({ op: 'update', id: row.original.id, changes, if_match: row.original.version });
    } else if (!row.remove) {
      operations.push({ op: 'create', record: { type: row.type, name: row.name, content: row.content, ttl: row.ttl, ...(TAKES_PRIORITY.has(row.type) ? { priority: row.priority ?? 10 } : {}) } });
    } else continue;
    rowKeys.push(row.key);
  }
  return { operations, rowKeys };
}

/** The editor's column names, for the fields a batch's errors name (`record.content` → Content). */
const FIELD_LABELS: Record<string, string> = { type: 'Type', name: 'Name', content: 'Content', ttl: 'TTL', priority: 'Priority' };

/** Field errors of a batch (`loc` = body, operations, index, …) by the row they belong to. */
function errorsByRow(error: unknown, rowKeys: string[]): Map<string, string> {
  const byRow = new Map<string, string>();
  if (!(error instanceof ApiError)) return byRow;
  for (const f of error.fieldErrors) {
    const index = f.loc[0] === 'body' && f.loc[1] === 'operations' ? Number(f.loc[2]) : NaN;
    const key = rowKeys[index];
    if (key === undefined) continue;
    const field = f.loc.slice(4).join('.') || f.loc.slice(3).join('.');
    const label = FIELD_LABELS[field] ?? field;
    byRow.set(key, [byRow.get(key), `${label ? `${label}: ` : ''}${f.msg}`].filter(Boolean).join(' '));
  }
  return byRow;
}

let newRowCounter = 0;

export function RecordsEditor({ orgId, domain }: { orgId: string; domain: string }) {
  const { client } = useDashboard();
  const records = useLoad((signal) => client.listDnsRecords({ path: { org_oid: orgId, domain }, query: { limit: 100 } }, { signal }), [client, orgId, domain]);
  const [rows, setRows] = useState<Row[]>([]);
  const [sentKeys, setSentKeys] = useState<string[]>([]);
  const [saved, setSaved] = useState<string | undefined>(undefined);
  const apply = useAction();
  useEffect(() => setRows((records.data?.data ?? []).map(fromRecord)), [records.data]);

  const update = (key: string, patch: Partial<Row>) => setRows((all) => all.map((r) => (r.key === key ? { ...r, ...patch } : r)));
  const addRow = () =>
    setRows((all) => [...all, { key: `new-${++newRowCounter}`, type: 'A', name: '@', content: '', ttl: 3600, priority: null, remove: false }]);
  const { operations, rowKeys } = toOperations(rows);
  const rowErrors = errorsByRow(apply.error, sentKeys);

  const submit = async (event: Event) => {
    event.preventDefault();
    setSaved(undefined);
    setSentKeys(rowKeys);
    const result = await apply.run(() => client.batchDnsRecords({ path: { org_oid: orgId, domain }, body: { operations } }));
    if (result) {
      setSaved(`Applied ${result.results.length} change${result.results.length === 1 ? '' : 's'}.`);
      records.reload();
    }
  };

  return (
    <article aria-label="DNS records">
      <header class="row-header">
        <strong>DNS records</strong>
        <small>Edit rows, add or mark for deletion, then apply all changes at once: they succeed together or not at all.</small>
      </header>
      <ErrorNote error={records.error} />
      <form onSubmit={(e) => void submit(e)}>
        {rows.length === 0 && records.data ? <Empty>No records yet.</Empty> : null}
        <TableScroll label="Records">
          <table class="records" aria-label="Records">
            <thead>
              <tr>
                <th>Type</th>
                <th>Name</th>
                <th>Content</th>
                <th>TTL</th>
                <th>Priority</th>
                <th>Delete</th>
              </tr>
            </thead>
            <tbody>
              {rows.map((row, index) => {
                const rowError = rowErrors.get(row.key);
                const changed = row.original ? row.remove || changesOf(row) !== undefined : true;
                return (
                  <Fragment key={row.key}>
                    <tr class={`${changed ? 'changed' : ''} ${row.remove ? 'removed' : ''}`} data-testid="record-row">
                      <td>
                        {row.original ? (
                          <code>{row.type}</code>
                        ) : (
                          <select aria-label={`Type of row ${index + 1}`} value={row.type} onChange={(e) => update(row.key, { type: e.currentTarget.value as RecordType })}>
                            {RECORD_TYPES.map((t) => (
                              <option key={t}>{t}</option>
                            ))}
                          </select>
                        )}
                      </td>
                      <td>
                        <input aria-label={`Name of row ${index + 1}`} placeholder="@" value={row.name} onInput={(e) => update(row.key, { name: e.currentTarget.value })} />
                      </td>
                      <td>
                        <input
                          aria-label={`Content of row ${index + 1}`}
                          value={row.content}
                          aria-invalid={rowError ? 'true' : undefined}
                          aria-describedby={row.original ? undefined : `hint-${row.key}`}
                          onInput={(e) => update(row.key, { content: e.currentTarget.value })}
                        />
                        {row.original ? null : (
                          <small class="record-hint" id={`hint-${row.key}`} data-testid="record-hint">
                            {RECORD_HINTS[row.type]}
                          </small>
                        )}
                      </td>
                      <td>
                        <input aria-label={`TTL of row ${index + 1}`} type="number" min={60} max={86400} value={row.ttl} onInput={(e) => update(row.key, { ttl: Number(e.currentTarget.value) })} />
                      </td>
                      <td>
                        {TAKES_PRIORITY.has(row.type) ? (
                          <input
                            aria-label={`Priority of row ${index + 1}`}
                            type="number"
                            min={0}
                            max={65535}
                            value={row.priority ?? 10}
                            onInput={(e) => update(row.key, { priority: Number(e.currentTarget.value) })}
                          />
                        ) : (
                          '—'
                        )}
                      </td>
                      <td>
                        <input type="checkbox" aria-label={`Delete row ${index + 1}`} checked={row.remove} onChange={(e) => update(row.key, { remove: e.currentTarget.checked })} />
                      </td>
                    </tr>
                    {rowError ? (
                      <tr class="row-error">
                        <td colSpan={6}>
                          <small class="field-error">{rowError}</small>
                        </td>
                      </tr>
                    ) : null}
                  </Fragment>
                );
              })}
            </tbody>
          </table>
        </TableScroll>
        <ErrorNote error={rowErrors.size > 0 ? undefined : apply.error} />
        {saved ? <p role="status">{saved}</p> : null}
        <div class="button-row">
          <button type="button" class="secondary outline" onClick={addRow}>
            Add record
          </button>
          <button type="button" class="secondary outline" disabled={operations.length === 0} onClick={() => setRows((records.data?.data ?? []).map(fromRecord))}>
            Discard changes
          </button>
          <button type="submit" disabled={operations.length === 0 || apply.busy} aria-busy={apply.busy ? 'true' : undefined}>
            Apply {operations.length} change{operations.length === 1 ? '' : 's'}
          </button>
        </div>
      </form>
    </article>
  );
}
