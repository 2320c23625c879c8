import type { components } from '../../client/src/index.js';
import type { FieldError } from '../errors.js';
import type { RecordFields, RecordIssue } from '../features/dns/index.js';
import type { Changes, Endpoint } from './protocol.js';
import { clampTtl, fqdn, recordOfTarget, rrsetOf, valueKey, zoneOf, type StoredRecord } from './endpointRecords.js';
import { addToGroup, groupBy } from '../grouping.js';

export type BatchOperation = components['schemas']['DnsRecordBatchInput']['operations'][number];

/** The most operations one `POST …/records/batch` takes. */
export const BATCH_LIMIT = 100;

const CHANGE_KINDS = ['delete', 'updateOld', 'updateNew', 'create'] as const;
type ChangeKind = (typeof CHANGE_KINDS)[number];

/** An endpoint of the request, with where it stood in it (for the 422's `loc`). */
interface Located {
  endpoint: Endpoint;
  loc: string[];
}

export type ZoneChanges = Record<ChangeKind, Located[]>;

/**
 * The changes split by zone. Names under no zone are set apart: external-dns writes an apex
 * record's ownership TXT beside the zone (`a-example.com` for `example.com`) unless its
 * `--txt-prefix` holds a dot (docs/external-dns.md).
 */
export function changesByZone(zones: readonly string[], changes: Changes): { byZone: Map<string, ZoneChanges>; outside: Endpoint[] } {
  const byZone = new Map<string, ZoneChanges>();
  const outside: Endpoint[] = [];
  for (const kind of CHANGE_KINDS) {
    changes[kind].forEach((endpoint, index) => {
      const zone = zoneOf(zones, fqdn(endpoint.dnsName));
      if (!zone) return void outside.push(endpoint);
      if (!byZone.has(zone)) byZone.set(zone, { delete: [], updateOld: [], updateNew: [], create: [] });
      byZone.get(zone)![kind].push({ endpoint, loc: ['body', kind, String(index)] });
    });
  }
  return { byZone, outside };
}

/** One RRset as the changes leave it: the values it must hold, and its TTL when one was asked for. */
interface RRsetTarget {
  type: RecordFields['type'];
  name: string;
  /** Which name's batch it goes in: its own, or, for an ownership TXT, the record it owns. */
  group: string;
  values: Map<string, RecordFields>;
  ttl: number | undefined;
}

function locOf(located: Located, issue: RecordIssue, targetIndex: number | undefined): string[] {
  if (issue.type === 'record_type_unsupported') return [...located.loc, 'recordType'];
  if (issue.field === 'name') return [...located.loc, 'dnsName'];
  if (issue.field === 'ttl') return [...located.loc, 'recordTTL'];
  return targetIndex === undefined ? located.loc : [...located.loc, 'targets', String(targetIndex)];
}

/**
 * The batch operations that make a zone's records what external-dns asked: deletes take the values
 * named away, an update makes the RRset exactly its new targets (whatever the old side said, so a
 * record that drifted is put right), creates add values. Only the difference from `current` is sent,
 * each change checked against the version read. A zone's operations go in one batch, all or nothing;
 * past BATCH_LIMIT they are split between names, a record and its ownership TXT always together.
 */
export function zoneBatches(zone: string, current: readonly StoredRecord[], changes: ZoneChanges): { batches: BatchOperation[][] } | { issues: FieldError[] } {
  const issues: FieldError[] = [];
  const stored = groupBy(current, (record) => `${record.name} ${record.type}`);
  const rrsets = new Map<string, RRsetTarget>();

  const rrsetFor = (located: Located): RRsetTarget | undefined => {
    const rrset = rrsetOf(zone, located.endpoint);
    if (!rrset.ok) {
      issues.push(...rrset.issues.map((issue) => ({ loc: locOf(located, issue, undefined), msg: issue.message, type: issue.type })));
      return undefined;
    }
    const { type, name } = rrset.value;
    const key = `${name} ${type}`;
    if (!rrsets.has(key)) {
      const owned = located.endpoint.labels.ownedRecord;
      const ownedZone = owned === undefined ? undefined : zoneOf([zone], fqdn(owned));
      const group = ownedZone ? fqdn(owned!).slice(0, -(zone.length + 1)) || '@' : name;
      const values = new Map((stored.get(key) ?? []).map((record) => [valueKey(record), { ...record, type }]));
      rrsets.set(key, { type, name, group, values, ttl: undefined });
    }
    return rrsets.get(key);
  };
  /** The values an endpoint names; a value no record could hold is a problem, except in a delete, where it matches nothing. */
  const valuesOf = (located: Located, options: { deleting: boolean }): RecordFields[] => {
    const ttl = clampTtl(located.endpoint.recordTTL);
    return located.endpoint.targets.flatMap((target, i) => {
      const record = recordOfTarget(zone, located.endpoint, target, ttl);
      if (record.ok) return [record.value];
      if (!options.deleting) issues.push(...record.issues.map((issue) => ({ loc: locOf(located, issue, i), msg: issue.message, type: issue.type })));
      return [];
    });
  };
  const sameRRset = (a: Endpoint, b: Endpoint) => fqdn(a.dnsName) === fqdn(b.dnsName) && a.recordType.toUpperCase() === b.recordType.toUpperCase();

  const deletions = [...changes.delete, ...changes.updateOld.filter((old) => !changes.updateNew.some((next) => sameRRset(old.endpoint, next.endpoint)))];
  for (const located of deletions) {
    const rrset = rrsetFor(located);
    if (!rrset) continue;
    if (located.endpoint.targets.length === 0) rrset.values.clear();
    for (const value of valuesOf(located, { deleting: true })) rrset.values.delete(valueKey(value));
  }
  for (const located of changes.updateNew) {
    const rrset = rrsetFor(located);
    if (!rrset) continue;
    rrset.values = new Map(valuesOf(located, { deleting: false }).map((value) => [valueKey(value), value]));
    if (located.endpoint.recordTTL > 0) rrset.ttl = clampTtl(located.endpoint.recordTTL);
  }
  for (const located of changes.create) {
    const rrset = rrsetFor(located);
    if (!rrset) continue;
    for (const value of valuesOf(located, { deleting: false })) if (!rrset.values.has(valueKey(value))) rrset.values.set(valueKey(value), value);
    if (located.endpoint.recordTTL > 0) rrset.ttl = clampTtl(located.endpoint.recordTTL);
  }
  if (issues.length > 0) return { issues };

  const groups = new Map<string, BatchOperation[]>();
  for (const [key, rrset] of rrsets) {
    const operations = operationsFor(rrset, stored.get(key) ?? []);
    for (const operation of operations) addToGroup(groups, rrset.group, operation);
  }
  return { batches: pack([...groups.keys()].sort().map((group) => deletesFirst(groups.get(group)!))) };
}

/** What turns the stored records of one RRset into its target. */
function operationsFor(rrset: RRsetTarget, stored: readonly StoredRecord[]): BatchOperation[] {
  const operations: BatchOperation[] = [];
  // New values take the TTL asked for, else the RRset's own (the lowest, the one served), else the default.
  const ttl = rrset.ttl ?? (stored.length > 0 ? Math.min(...stored.map((record) => record.ttl)) : undefined);
  for (const record of stored) {
    if (!rrset.values.has(valueKey(record))) operations.push({ op: 'delete', id: record.id, if_match: record.version });
    else if (rrset.ttl !== undefined && record.ttl !== rrset.ttl) operations.push({ op: 'update', id: record.id, changes: { ttl: rrset.ttl }, if_match: record.version });
  }
  const have = new Set(stored.map(valueKey));
  for (const [key, value] of rrset.values) {
    if (have.has(key)) continue;
    operations.push({
      op: 'create',
      record: { type: rrset.type, name: rrset.name, content: value.content, ...(value.priority === null ? {} : { priority: value.priority }), ...(ttl === undefined ? {} : { ttl }) },
    });
  }
  return operations;
}

/** A CNAME replacing an A record at one name: the delete must come first. */
const deletesFirst = (operations: BatchOperation[]) => [...operations].sort((a, b) => Number(a.op !== 'delete') - Number(b.op !== 'delete'));

/** Groups into batches of at most BATCH_LIMIT, a group split only when it alone is larger. */
function pack(groups: BatchOperation[][]): BatchOperation[][] {
  const batches: BatchOperation[][] = [];
  let batch: BatchOperation[] = [];
  for (const group of groups) {
    if (batch.length + group.length > BATCH_LIMIT && batch.length > 0) {
      batches.push(batch);
      batch = [];
    }
    for (let i = 0; i < group.length; i += BATCH_LIMIT) {
      const part = group.slice(i, i + BATCH_LIMIT);
      if (batch.length + part.length > BATCH_LIMIT) {
        batches.push(batch);
        batch = [];
      }
      batch.push(...part);
    }
  }
  if (batch.length > 0) batches.push(batch);
  return batches;
}
