import type { Queryable } from '../../db/pool.js';
import { ModeScopedTable, modeScopedParams, type Mode, modeOf } from '../../db/modeScope.js';
import { keyset, type PageRequest } from '../../db/keyset.js';
import type { SealedJson } from '../../db/sealedJson.js';
import { recordOperationFinished } from '../../metrics/record.js';

/** What `workflow_input` is sealed for (see `sealedJson.ts`): the auth code of a transfer is in it. */
export const WORKFLOW_INPUT_PURPOSE = 'operations.workflow_input';

/** The paid domain operations, and the free DNSSEC ones (src/features/dns/dnssec.ts). */
export type OperationType = 'domain.register' | 'domain.transfer' | 'domain.renew' | 'dnssec.enable' | 'dnssec.disable';
export type OperationStatus = 'pending' | 'running' | 'succeeded' | 'failed' | 'cancelled';

export interface Operation {
  id: string;
  orgId: string;
  livemode: boolean;
  type: OperationType;
  status: OperationStatus;
  domain: string;
  domainId: string | null;
  workflowId: string;
  /** Encrypted: open it with `openJson(keys, WORKFLOW_INPUT_PURPOSE, …)`. */
  workflowInput: SealedJson;
  /** Hash of the request that created it; null for operations older than the column. */
  requestHash: string | null;
  amount: number;
  result: Record<string, unknown> | null;
  error: { code: string; detail: string } | null;
  createdAt: Date;
  updatedAt: Date;
  completedAt: Date | null;
}

/** The columns of an Operation, for statements that read one beside other things (registration.repository.ts). */
export const OPERATION_COLUMNS = `id, org_id AS "orgId", livemode, type, status, domain, domain_id AS "domainId", workflow_id AS "workflowId",
   workflow_input AS "workflowInput", request_hash AS "requestHash",
   amount::int AS amount, result, error, created_at AS "createdAt", updated_at AS "updatedAt", completed_at AS "completedAt"`;

const operations = new ModeScopedTable<Operation>('operations', OPERATION_COLUMNS);

export function insertOperation(
  db: Queryable,
  mode: Mode,
  op: Pick<Operation, 'id' | 'orgId' | 'type' | 'domain' | 'domainId' | 'workflowId' | 'workflowInput' | 'amount'> & { requestHash?: string | null },
): Promise<Operation> {
  return operations.insert(db, mode, {
    id: op.id,
    org_id: op.orgId,
    type: op.type,
    status: 'pending',
    domain: op.domain,
    domain_id: op.domainId,
    workflow_id: op.workflowId,
    workflow_input: JSON.stringify(op.workflowInput),
    request_hash: op.requestHash ?? null,
    amount: op.amount,
  });
}

export function findOperation(db: Queryable, mode: Mode, orgId: string, id: string): Promise<Operation | undefined> {
  return operations.findOne(db, mode, 'org_id = $2 AND id = $3', [orgId, id]);
}

/** By id alone, for the system's own bookkeeping (activities); callers use findOperation. */
export function findOperationById(db: Queryable, mode: Mode, id: string): Promise<Operation | undefined> {
  return operations.findOne(db, mode, 'id = $2', [id]);
}

export function findOperationByWorkflowId(db: Queryable, mode: Mode, workflowId: string): Promise<Operation | undefined> {
  return operations.findOne(db, mode, 'workflow_id = $2', [workflowId]);
}

/**
 * Operations still `pending` after `graceMs`, in both modes, oldest first: what the stranded-operations run looks
 * at. No caller asks for these (the system sweeps its own leftovers), so both modes are read, each
 * through its own scope, and every write after it is scoped to the row's mode.
 */
export async function listStalePendingOperations(db: Queryable, props: { graceMs: number; limit: number }): Promise<Operation[]> {
  const both = await Promise.all(
    [false, true].map((livemode) =>
      operations.select(db, modeOf(livemode), `status = 'pending' AND created_at < now() - make_interval(secs => $2)`, [props.graceMs / 1000, props.limit], 'ORDER BY created_at LIMIT $3'),
    ),
  );
  return both.flat().sort((a, b) => a.createdAt.getTime() - b.createdAt.getTime()).slice(0, props.limit);
}

/** Newest first, by keyset on (created_at, id). */
export function listOperationsOfOrg(db: Queryable, mode: Mode, props: { orgId: string } & PageRequest): Promise<Operation[]> {
  const p = modeScopedParams();
  const page = keyset(p, { time: 'created_at', id: 'id' }, props);
  return operations.select(db, mode, `org_id = ${p.add(props.orgId)} AND ${page.condition}`, p.values, page.tail);
}

/** Moves an operation on; a finished one (succeeded, failed, cancelled) never changes again. */
export async function updateOperation(
  db: Queryable,
  mode: Mode,
  id: string,
  changes: { status: OperationStatus; result?: Record<string, unknown>; error?: { code: string; detail: string } },
): Promise<Operation | undefined> {
  const finished = changes.status !== 'pending' && changes.status !== 'running';
  const [updated] = await operations.update(db, mode, `id = $2 AND status IN ('pending', 'running')`, [id], {
    status: changes.status,
    ...(changes.result ? { result: JSON.stringify(changes.result) } : {}),
    ...(changes.error ? { error: JSON.stringify(changes.error) } : {}),
    updated_at: new Date(),
    ...(finished ? { completed_at: new Date() } : {}),
  });
  if (updated && finished) recordOperationFinished(updated);
  return updated;
}

/**
 * The workflow takes its operation: pending (or already running, on a retried activity) becomes
 * running. False when the api abandoned the operation first; the workflow must then do nothing.
 */
export async function claimOperationForWorkflow(db: Queryable, mode: Mode, id: string): Promise<boolean> {
  const claimed = await operations.update(db, mode, `id = $2 AND status IN ('pending', 'running')`, [id], {
    status: 'running',
    updated_at: new Date(),
  });
  return claimed.length === 1;
}

/**
 * The api gives up an operation whose workflow it could not start, but only while it is still
 * pending: if a workflow already took it, the work goes on. True when it was abandoned.
 */
export async function abandonPendingOperation(db: Queryable, mode: Mode, id: string, error: { code: string; detail: string }): Promise<boolean> {
  const abandoned = await operations.update(db, mode, `id = $2 AND status = 'pending'`, [id], {
    status: 'failed',
    error: JSON.stringify(error),
    updated_at: new Date(),
    completed_at: new Date(),
  });
  for (const op of abandoned) recordOperationFinished(op);
  return abandoned.length === 1;
}

/** A renewal of the domain that has not finished yet (at most one: operations_one_open_renewal_idx). */
export function findOpenRenewal(db: Queryable, mode: Mode, domainId: string): Promise<Operation | undefined> {
  return operations.findOne(db, mode, `domain_id = $2 AND type = 'domain.renew' AND status IN ('pending', 'running')`, [domainId]);
}

export interface UnfinishedOperations {
  type: OperationType;
  status: 'pending' | 'running';
  livemode: boolean;
  count: number;
  oldestAgeSeconds: number;
}

/** Pending and running operations by type and status in both modes, with the oldest's age: for the metrics. */
export async function countUnfinishedOperations(db: Queryable): Promise<UnfinishedOperations[]> {
  const both = await Promise.all(
    [false, true].map(async (livemode) => {
      const { rows } = await db.query<Omit<UnfinishedOperations, 'livemode'>>(
        `SELECT type, status, count(*)::int AS count, EXTRACT(EPOCH FROM now() - min(created_at))::float8 AS "oldestAgeSeconds"
         FROM operations WHERE livemode = $1 AND status IN ('pending', 'running') GROUP BY type, status`,
        [livemode],
      );
      return rows.map((row) => ({ ...row, livemode }));
    }),
  );
  return both.flat();
}
