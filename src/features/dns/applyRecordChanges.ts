import type pg from 'pg';
import { activeDomainNamed, type Domain } from '../domains/index.js';
import { withTransaction, type Db } from '../../db/pool.js';
import {
  deleteDnsRecords,
  dnsRecordsAtNames,
  findDnsRecordsByIds,
  insertDnsRecords,
  lockDnsNames,
  updateDnsRecords,
  type DnsRecord,
} from './dnsRecords.repository.js';
import { auditCallerActions } from '../../audit/auditEvents.js';
import type { Principal } from '../../auth/principal.js';
import type { DomainName } from '../../domainName.js';
import { absoluteName, checkRecord, normalizeRecordName, type RecordFields } from './records.js';
import { RECORD_TYPE_SPECS, RECORD_TYPES } from './recordTypes.js';
import type { DnsProviders, RRsetChange } from './provider/index.js';
import { DnsZoneNotFoundError } from './provider/errors.js';
import { ConflictError, NotFoundError, ValidationError, VersionMismatchError, type FieldError } from '../../errors.js';
import { newId } from '../../ids.js';
import { claimZone, ownsZone, zoneHost } from './zones.js';
import { notifyTransfers } from './zoneTransferHost.js';
import { rrsetChange } from './rrsets.js';
import { emitRecordChangeEvents, type RecordChange } from './recordEvents.js';
import { requireRecordAllowed } from '../../auth/authorize.js';
import { groupBy } from '../../grouping.js';
import { requireRoomForRecords } from './zoneRecordLimit.js';
import { modeOf, type Mode } from '../../db/modeScope.js';

/** The fields a PATCH sends; the ones left out stay undefined and keep their value. */
export type RecordChanges = Partial<Pick<RecordFields, 'name' | 'content' | 'ttl' | 'priority'>>;

export type RecordOperation =
  | { op: 'create'; record: RecordFields }
  | { op: 'update'; id: string; changes: RecordChanges; expectedVersion: number | undefined }
  | { op: 'delete'; id: string; expectedVersion: number | undefined };

export type RecordOperationResult = { op: 'create' | 'update'; record: DnsRecord } | { op: 'delete'; id: string };

export interface ApplyRecordChangesProps {
  db: Db;
  dnsProviders: DnsProviders;
  principal: Principal;
  orgId: string;
  /** The domain named in the path. */
  domain: DomainName;
  operations: RecordOperation[];
  /**
   * `single` for the one-record routes: a missing record is 404 and field errors point into the body.
   * `batch`: both are 422 field errors at `body.operations.N…`.
   */
  shape: 'single' | 'batch';
  requestId: string;
  /**
   * The id of the record the create at this index makes, when the request derives one
   * (idempotentId); else a new one. A request whose creates all exist already was applied by an
   * earlier run whose answer was lost, and is answered from the rows instead of applied again.
   */
  createdIdOf?: (index: number) => string | undefined;
  /** Every check, under the same locks, then nothing written or sent: the answer is empty. */
  dryRun?: boolean;
  /**
   * A seed for the request's event, when the request derives one (`0` for one record changed,
   * `zone` for `dns_zone.changed`): should the request run again (its answer lost), the event it
   * writes again is the same one, not a second.
   */
  eventSeedOf?: (part: number | 'zone') => string | undefined;
}

/**
 * Applies creates, updates and deletes of one domain's records: all of them or none, at the DNS
 * provider and here.
 *
 * In one transaction: the domain must be active; every affected name is locked (advisory locks,
 * sorted), so concurrent edits of a name run one after the other; a key restricted to
 * `allowed_records` must be allowed every record touched; the new state of each affected
 * RRset is computed from the rows plus the changes and checked (per-type rules, a CNAME shares its
 * name with nothing, no duplicates); a change adding records must fit the zone's record limit
 * (zoneRecordLimit.ts, counted under a lock of its own); then the whole RRsets go to the provider in
 * one atomic change, and only once it has accepted them are the rows written and committed. If the provider fails the
 * transaction rolls back and nothing changes. Should the commit itself fail after the provider took
 * the change, the next edit of that name sends the RRset again from the rows, which repairs it.
 */
export async function applyRecordChanges(props: ApplyRecordChangesProps): Promise<RecordOperationResult[]> {
  const { principal } = props;
  return withTransaction(props.db, async (tx) => {
    const domain = await activeDomainNamed(tx, modeOf(principal.livemode), props.orgId, props.domain, 'its DNS records can be changed');
    const { rows, names } = await lockAffectedNames(tx, modeOf(principal.livemode), domain.id, props.operations);
    const applied = await resultsIfApplied(tx, props, domain.id, rows);
    if (applied) return applied;
    checkTargets(props, rows);
    requireOperationsAllowed(principal, domain.name, props.operations, rows);
    const before = await dnsRecordsAtNames(tx, modeOf(principal.livemode), { domainId: domain.id, names: [...names] });
    const plan = planChanges(props, domain.name, before, rows);
    await requireRoomForRecords(tx, modeOf(principal.livemode), { orgId: props.orgId, domainId: domain.id, adding: recordsAdded(plan.writes) });
    if (props.dryRun) return [];
    await applyAtProvider(tx, props.dnsProviders, domain, plan.changes);
    return writeRows(tx, props, domain, plan.writes);
  });
}

type Write =
  | { kind: 'create'; id: string; fields: RecordFields }
  | { kind: 'update'; row: DnsRecord; fields: RecordFields }
  | { kind: 'delete'; row: DnsRecord };

/** Records the writes add to the zone: creates less deletes (the zone's record limit counts them). */
const recordsAdded = (writes: Write[]) => writes.reduce((n, w) => n + (w.kind === 'create' ? 1 : w.kind === 'delete' ? -1 : 0), 0);

const idsOf = (operations: RecordOperation[]) => operations.flatMap((o) => (o.op === 'create' ? [] : [o.id]));

/**
 * Locks every name the operations touch: the names of new records, new names of renamed ones, and
 * the current names of updated and deleted ones (read, locked, read again with row locks; a record
 * renamed in between gets its new name locked too).
 */
async function lockAffectedNames(tx: pg.PoolClient, mode: Mode, domainId: string, operations: RecordOperation[]) {
  const ids = [...new Set(idsOf(operations))];
  const names = new Set<string>();
  for (const o of operations) {
    if (o.op === 'create') names.add(normalizeRecordName(o.record.name));
    if (o.op === 'update' && o.changes.name !== undefined) names.add(normalizeRecordName(o.changes.name));
  }
  for (const row of await findDnsRecordsByIds(tx, mode, { domainId, ids })) names.add(row.name);
  await lockDnsNames(tx, domainId, names);
  for (;;) {
    const rows = await findDnsRecordsByIds(tx, mode, { domainId, ids, forUpdate: true });
    const unlocked = rows.map((r) => r.name).filter((name) => !names.has(name));
    if (unlocked.length === 0) return { rows: new Map(rows.map((r) => [r.id, r])), names };
    for (const name of unlocked) names.add(name);
    await lockDnsNames(tx, domainId, unlocked);
  }
}

/** The results of an earlier run of this very request, read back from the rows, if it committed. */
async function resultsIfApplied(
  tx: pg.PoolClient,
  props: ApplyRecordChangesProps,
  domainId: string,
  rows: Map<string, DnsRecord>,
): Promise<RecordOperationResult[] | undefined> {
  const createdIds = props.operations.map((o, index) => (o.op === 'create' ? props.createdIdOf?.(index) : undefined));
  const wanted = createdIds.filter((id): id is string => id !== undefined);
  if (wanted.length === 0) return undefined;
  const created = new Map((await findDnsRecordsByIds(tx, modeOf(props.principal.livemode), { domainId, ids: wanted })).map((r) => [r.id, r]));
  if (created.size < wanted.length) return undefined;
  return props.operations.map((o, index): RecordOperationResult => {
    if (o.op === 'delete') return { op: 'delete', id: o.id };
    const record = o.op === 'create' ? created.get(createdIds[index]!) : rows.get(o.id);
    if (!record) throw new NotFoundError('Record not found');
    return { op: o.op, record };
  });
}

function loc(shape: ApplyRecordChangesProps['shape'], index: number, part: 'record' | 'changes' | 'id', field?: string): string[] {
  if (shape === 'single') return part === 'id' ? ['path', 'record_id'] : ['body', ...(field ? [field] : [])];
  return ['body', 'operations', String(index), part, ...(field ? [field] : [])];
}

/** Updates and deletes must name existing records of this domain, each once. */
function checkTargets(props: ApplyRecordChangesProps, rows: Map<string, DnsRecord>): void {
  const issues: FieldError[] = [];
  const seen = new Map<string, number>();
  props.operations.forEach((o, index) => {
    if (o.op === 'create') return;
    if (!rows.has(o.id)) {
      if (props.shape === 'single') throw new NotFoundError('Record not found');
      issues.push({ loc: loc(props.shape, index, 'id'), msg: 'No such record on this domain', type: 'record_not_found' });
    } else if (seen.has(o.id)) {
      issues.push({ loc: loc(props.shape, index, 'id'), msg: `Operation ${seen.get(o.id)} already changes this record`, type: 'record_repeated' });
    }
    seen.set(o.id, index);
  });
  if (issues.length > 0) throw new ValidationError(issues);
}

/**
 * A key restricted to `allowed_records` changes only matching records (403 RECORD_NOT_ALLOWED, and
 * nothing changes): the record each create makes, each record updated or deleted as it is now, and a
 * renamed record's new name (a record's type never changes). Whatever route asked (one record, a
 * batch, a zone file, httpreq), the check is made here.
 */
function requireOperationsAllowed(principal: Principal, zone: string, operations: RecordOperation[], rows: Map<string, DnsRecord>): void {
  if ((principal.guards?.allowedRecords ?? []).length === 0) return;
  const require = (name: string, type: string) => requireRecordAllowed(principal, absoluteName(normalizeRecordName(name), zone), type);
  for (const operation of operations) {
    if (operation.op === 'create') {
      require(operation.record.name, operation.record.type);
      continue;
    }
    const row = rows.get(operation.id)!;
    require(row.name, row.type);
    if (operation.op === 'update' && operation.changes.name !== undefined) require(operation.changes.name, row.type);
  }
}

function fieldsOf(row: DnsRecord): RecordFields {
  return { type: row.type, name: row.name, content: row.content, ttl: row.ttl, priority: row.priority };
}

const rrsetKey = (r: Pick<RecordFields, 'name' | 'type'>) => `${r.name} ${r.type}`;

/** The rows after the operations, checked; what the provider is sent; what the database is written. */
function planChanges(props: ApplyRecordChangesProps, zone: string, before: DnsRecord[], rows: Map<string, DnsRecord>) {
  const state = new Map(before.map((r) => [r.id, fieldsOf(r)]));
  const touched = new Map<string, Pick<RecordFields, 'name' | 'type'>>();
  const touch = (r: RecordFields) => touched.set(rrsetKey(r), { name: r.name, type: r.type });
  const issues: FieldError[] = [];
  const writes: Write[] = [];
  props.operations.forEach((o, index) => {
    if (o.op === 'delete') {
      const row = rows.get(o.id)!;
      state.delete(row.id);
      touch(row);
      writes.push({ kind: 'delete', row });
      return;
    }
    const row = o.op === 'update' ? rows.get(o.id)! : undefined;
    const checked = checkRecord(o.op === 'update' ? merge(fieldsOf(row!), o.changes) : o.record, zone);
    if (!checked.ok) {
      const part = o.op === 'create' ? 'record' : 'changes';
      issues.push(...checked.issues.map((i) => ({ loc: loc(props.shape, index, part, i.field), msg: i.message, type: i.type })));
      return;
    }
    touch(checked.value);
    if (row) {
      touch(row);
      state.set(row.id, checked.value);
      writes.push({ kind: 'update', row, fields: checked.value });
    } else {
      const id = props.createdIdOf?.(index) ?? newId('rec');
      state.set(id, checked.value);
      writes.push({ kind: 'create', id, fields: checked.value });
    }
  });
  if (issues.length > 0) throw new ValidationError(issues);
  checkVersions(props, rows);
  // By name: a zone file touches thousands of names, and a scan of every record per name is quadratic.
  const after = groupBy(state.values(), (r) => r.name);
  for (const name of new Set([...touched.values()].map((t) => t.name))) checkName(name, after.get(name) ?? []);
  const changes = [...touched.values()].map(({ name, type }) => rrsetChange(name, type, (after.get(name) ?? []).filter((r) => r.type === type)));
  return { changes, writes };
}

function merge(fields: RecordFields, changes: RecordChanges): RecordFields {
  return {
    type: fields.type,
    name: changes.name ?? fields.name,
    content: changes.content ?? fields.content,
    ttl: changes.ttl ?? fields.ttl,
    priority: changes.priority !== undefined ? changes.priority : fields.priority,
  };
}

function checkVersions(props: ApplyRecordChangesProps, rows: Map<string, DnsRecord>): void {
  props.operations.forEach((o, index) => {
    if (o.op === 'create' || o.expectedVersion === undefined) return;
    const current = rows.get(o.id)!.version;
    if (current === o.expectedVersion) return;
    if (props.shape === 'single') throw new VersionMismatchError({ resource: 'record', current, expected: o.expectedVersion });
    throw new ConflictError(
      'VERSION_MISMATCH',
      `Operation ${index}: record ${o.id} is at version ${current}, not ${o.expectedVersion}; nothing was changed. Fetch it again and retry.`,
    );
  });
}

/**
 * What each type may share its name with, as declared (recordTypes.ts: a CNAME nothing, an ALIAS no
 * addresses, a DS needs NS records), and an RRset holds each record once.
 */
function checkName(name: string, records: RecordFields[]): void {
  for (const type of RECORD_TYPES) {
    const conflict = RECORD_TYPE_SPECS[type].sharesName?.(name, records);
    if (conflict) throw new ConflictError('RECORD_CONFLICT', conflict);
  }
  const seen = new Set<string>();
  for (const r of records) {
    const key = `${r.type} ${r.priority ?? ''} ${r.content}`;
    if (seen.has(key)) throw new ConflictError('DUPLICATE', `"${name}" already has this ${r.type} record (${r.content})`);
    seen.add(key);
  }
}

/**
 * Sends the changes in one atomic request to the host of the domain's mode (none in test mode
 * without a test host: the rows alone change). A zone that is not the domain's own is claimed first
 * (./zones.ts): one an earlier registration of the name left behind is replaced, records and all;
 * one another domain still holds (test mode: another organisation's domain of the name) is left
 * alone, and this domain's records are kept here only, unserved. A zone missing at the host (the
 * domain became active before its zone was created, or it was removed there) is created with the
 * domain's name servers and records, and the changes sent again. A zone transferred to secondaries
 * has them notified at once.
 */
async function applyAtProvider(tx: pg.PoolClient, providers: DnsProviders, domain: Domain, changes: RRsetChange[]): Promise<void> {
  const provider = zoneHost(providers, domain.livemode);
  if (!provider) return;
  if (!(await ownsZone(tx, domain)) && !(await claimZone(tx, provider, domain)).served) return;
  try {
    await provider.applyChanges(domain.name, changes);
  } catch (err) {
    if (!(err instanceof DnsZoneNotFoundError)) throw err;
    await claimZone(tx, provider, domain);
    await provider.applyChanges(domain.name, changes);
  }
  await notifyTransfers(tx, provider, domain);
}

/** The audit action of each kind of change. */
const ACTIONS = { create: 'dns_record.created', update: 'dns_record.updated', delete: 'dns_record.deleted' } as const;

/**
 * Creates, updates and deletes go in a statement each, the audit events in one and the request's
 * event in one, however many records change (a zone file writes thousands of rows; a statement
 * each took seconds, and 500 rows a statement most of a second). The unique constraint on records
 * is deferred, so the order of the statements within the transaction does not matter. The event is
 * one record's, or one `dns_zone.changed` for several, whatever route or import asked (./recordEvents.ts),
 * and written last, so that it takes its place in the outbox as near the commit as it can.
 */
async function writeRows(tx: pg.PoolClient, props: ApplyRecordChangesProps, domain: Domain, writes: Write[]): Promise<RecordOperationResult[]> {
  const { principal } = props;
  const mode = modeOf(principal.livemode);
  const creates = writes.flatMap((w) => (w.kind === 'create' ? [{ id: w.id, fields: w.fields }] : []));
  const created = new Map((await insertDnsRecords(tx, mode, { domainId: domain.id, orgId: props.orgId, rows: creates })).map((r) => [r.id, r]));
  await deleteDnsRecords(tx, mode, writes.flatMap((w) => (w.kind === 'delete' ? [w.row.id] : [])));
  const updates = writes.flatMap((w) => (w.kind === 'update' ? [{ id: w.row.id, fields: w.fields }] : []));
  const updated = new Map((await updateDnsRecords(tx, mode, updates)).map((r) => [r.id, r]));
  const results: RecordOperationResult[] = [];
  const audits: Parameters<typeof auditCallerActions>[2] = [];
  const changes: RecordChange[] = [];
  for (const write of writes) {
    let record: DnsRecord;
    if (write.kind === 'create') {
      record = created.get(write.id)!;
      results.push({ op: 'create', record });
      changes.push({ kind: 'create', record });
    } else if (write.kind === 'update') {
      record = updated.get(write.row.id)!;
      results.push({ op: 'update', record });
      changes.push({ kind: 'update', record, before: write.row });
    } else {
      record = write.row;
      results.push({ op: 'delete', id: record.id });
      changes.push({ kind: 'delete', record });
    }
    audits.push({
      action: ACTIONS[write.kind],
      orgId: props.orgId,
      targetType: 'dns_record',
      targetId: record.id,
      data: { livemode: principal.livemode, domain: domain.name, type: record.type, name: record.name, version: record.version },
    });
  }
  await auditCallerActions(tx, props, audits);
  await emitRecordChangeEvents(tx, { orgId: props.orgId, livemode: principal.livemode, domain: domain.name, changes, seedOf: props.eventSeedOf });
  return results;
}
