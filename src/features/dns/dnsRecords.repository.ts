import type { Queryable } from '../../db/pool.js';
import { ModeScopedTable, modeScopedParams, type Mode } from '../../db/modeScope.js';
import { keyset, type PageRequest } from '../../db/keyset.js';
import type { RecordFields, RecordType } from './records.js';

export interface DnsRecord extends RecordFields {
  id: string;
  domainId: string;
  orgId: string;
  version: number;
  createdAt: Date;
  updatedAt: Date;
}

const records = new ModeScopedTable<DnsRecord>(
  'dns_records',
  `id, domain_id AS "domainId", org_id AS "orgId", type, name, content, ttl, priority, version,
   created_at AS "createdAt", updated_at AS "updatedAt"`,
);

export function insertDnsRecord(db: Queryable, mode: Mode, props: { id: string; domainId: string; orgId: string; fields: RecordFields }): Promise<DnsRecord> {
  const { fields } = props;
  return records.insert(db, mode, {
    id: props.id,
    domain_id: props.domainId,
    org_id: props.orgId,
    type: fields.type,
    name: fields.name,
    content: fields.content,
    ttl: fields.ttl,
    priority: fields.priority,
  });
}

/**
 * Many records in one statement (a zone file's worth), in the order given: each as the table makes a
 * new one (version 1, created and updated at the transaction's time), not read back.
 */
export async function insertDnsRecords(db: Queryable, mode: Mode, props: { domainId: string; orgId: string; rows: { id: string; fields: RecordFields }[] }): Promise<DnsRecord[]> {
  if (props.rows.length === 0) return [];
  const { count, at } = await records.insertMany(
    db,
    mode,
    { id: 'text', domain_id: 'text', org_id: 'text', type: 'text', name: 'text', content: 'text', ttl: 'int', priority: 'int' },
    props.rows.map(({ id, fields }) => ({ id, domain_id: props.domainId, org_id: props.orgId, type: fields.type, name: fields.name, content: fields.content, ttl: fields.ttl, priority: fields.priority })),
  );
  if (count !== props.rows.length) throw new Error(`inserted ${count} dns records of ${props.rows.length}`);
  return props.rows.map(({ id, fields }) => ({
    id,
    domainId: props.domainId,
    orgId: props.orgId,
    type: fields.type,
    name: fields.name,
    content: fields.content,
    ttl: fields.ttl,
    priority: fields.priority,
    version: 1,
    createdAt: at,
    updatedAt: at,
  }));
}

export async function findDnsRecord(db: Queryable, mode: Mode, props: { domainId: string; id: string }): Promise<DnsRecord | undefined> {
  return records.findOne(db, mode, 'domain_id = $2 AND id = $3', [props.domainId, props.id]);
}

/** Records of the domain with these ids; `forUpdate` locks them until the transaction ends. */
export function findDnsRecordsByIds(db: Queryable, mode: Mode, props: { domainId: string; ids: string[]; forUpdate?: boolean }): Promise<DnsRecord[]> {
  if (props.ids.length === 0) return Promise.resolve([]);
  return records.select(db, mode, 'domain_id = $2 AND id = ANY($3::text[])', [props.domainId, props.ids], props.forUpdate ? 'ORDER BY id FOR UPDATE' : '');
}

/** Every record of the domain at these names, whatever their type. */
export function dnsRecordsAtNames(db: Queryable, mode: Mode, props: { domainId: string; names: string[] }): Promise<DnsRecord[]> {
  if (props.names.length === 0) return Promise.resolve([]);
  return records.select(db, mode, 'domain_id = $2 AND name = ANY($3::text[])', [props.domainId, props.names], 'ORDER BY created_at, id');
}

/** A record as a zone file import compares it: its fields, and the id and version an edit of it names. */
export interface VersionedRecord extends RecordFields {
  id: string;
  version: number;
}

/** Seven columns, not eleven: a replace reads the whole zone, and turning rows into objects was most of that (docs/bench.md, Scale). */
const versionedRecords = new ModeScopedTable<VersionedRecord>('dns_records', 'id, type, name, content, ttl, priority, version');

/** Every record of the domain, oldest first, as an import compares them. */
export function dnsRecordsOfDomain(db: Queryable, mode: Mode, domainId: string): Promise<VersionedRecord[]> {
  return versionedRecords.select(db, mode, 'domain_id = $2', [domainId], 'ORDER BY created_at, id');
}

/**
 * Zone-file order (zoneFileExport.ts): the apex first, then names by their labels read right to left,
 * so a name sits with its children, then type, priority and data, each compared bytewise. The key
 * joins the labels, last first, with \x01, below every character a name holds, so a label sorts before
 * the longer labels it begins and a name before its children. Up to eight labels `split_part` builds
 * it (empty parts only add more \x01, which keeps the order); past that, a subquery per name, which
 * costs twice as much (docs/bench.md, Scale).
 */
const REVERSED_LABELS_SHORT = `concat_ws(E'\\x01', ${[1, 2, 3, 4, 5, 6, 7, 8].map((n) => `split_part(name, '.', -${n})`).join(', ')})`;
const REVERSED_LABELS_ANY = `array_to_string(ARRAY(SELECT label FROM unnest(string_to_array(name, '.')) WITH ORDINALITY AS l(label, n) ORDER BY n DESC), E'\\x01')`;
const ZONE_FILE_ORDER = `ORDER BY name <> '@',
  (CASE WHEN name LIKE '%.%.%.%.%.%.%.%.%' THEN ${REVERSED_LABELS_ANY} ELSE ${REVERSED_LABELS_SHORT} END) COLLATE "C",
  type COLLATE "C", COALESCE(priority, 0), content COLLATE "C", id COLLATE "C"`;

/** What a zone file says of a record: no ids, versions or times, whose parsing was most of an export's time. */
const zoneFileRecords = new ModeScopedTable<RecordFields>('dns_records', 'type, name, content, ttl, priority');

/** Every record of the domain in zone-file order, `batch` at a time; `client` is in a transaction (an export's snapshot). */
export function dnsRecordsInZoneFileOrder(client: Queryable, mode: Mode, domainId: string, batch: number): AsyncGenerator<RecordFields[]> {
  return zoneFileRecords.selectInBatches(client, mode, 'domain_id = $2', [domainId], ZONE_FILE_ORDER, batch);
}

/**
 * The domain's records grouped by RRset (name, then type), in batches of `batch`, from one snapshot:
 * what a zone made afresh is given without the zone in memory whole. `client` must be in a transaction.
 */
export function dnsRecordsByRRset(client: Queryable, mode: Mode, domainId: string, batch: number): AsyncGenerator<RecordFields[]> {
  return zoneFileRecords.selectInBatches(client, mode, 'domain_id = $2', [domainId], 'ORDER BY name, type, id', batch);
}

/** When the domain's records last changed (a synthesized SOA's serial); undefined without records. */
export function latestDnsRecordChange(db: Queryable, mode: Mode, domainId: string): Promise<Date | undefined> {
  return records.latest(db, mode, 'updated_at', 'domain_id = $2', [domainId]);
}

/** Newest first, by keyset on (created_at, id); optionally one type and one name. */
export function listDnsRecords(
  db: Queryable,
  mode: Mode,
  props: { domainId: string; type: RecordType | undefined; name: string | undefined } & PageRequest,
): Promise<DnsRecord[]> {
  const p = modeScopedParams();
  const [type, name] = [p.add(props.type ?? null), p.add(props.name ?? null)];
  const page = keyset(p, { time: 'created_at', id: 'id' }, props);
  return records.select(
    db,
    mode,
    `domain_id = ${p.add(props.domainId)} AND (${type}::text IS NULL OR type = ${type}) AND (${name}::text IS NULL OR name = ${name}) AND ${page.condition}`,
    p.values,
    page.tail,
  );
}

/**
 * Sets each record's fields and raises its version by one, all in one statement (a zone file's
 * worth), answered in the order given; the caller holds their row locks.
 */
export async function updateDnsRecords(db: Queryable, mode: Mode, rows: { id: string; fields: RecordFields }[]): Promise<DnsRecord[]> {
  const updated = await records.updateMany(
    db,
    mode,
    { id: 'text', name: 'text', content: 'text', ttl: 'int', priority: 'int' },
    rows.map(({ id, fields }) => ({ id, name: fields.name, content: fields.content, ttl: fields.ttl, priority: fields.priority })),
    { increment: ['version'], now: ['updated_at'] },
  );
  const byId = new Map(updated.map((r) => [r.id, r]));
  return rows.map(({ id }) => {
    const record = byId.get(id);
    if (!record) throw new Error(`dns record ${id} vanished while locked`);
    return record;
  });
}

export async function deleteDnsRecords(db: Queryable, mode: Mode, ids: string[]): Promise<number> {
  if (ids.length === 0) return 0;
  return records.delete(db, mode, 'id = ANY($2::text[])', [ids]);
}

/**
 * Names past which an edit locks the whole domain instead: every advisory lock held takes a slot of
 * the server's shared lock table (max_locks_per_transaction × max_connections, 6,400 by default), so
 * a zone file's thousands of names must not each take one.
 */
export const NAME_LOCKS_MAX = 200;

/**
 * Serialises edits of one name of one domain until the transaction ends (a transaction-scoped
 * advisory lock, so it also covers names that have no rows yet). Names are locked in sorted order,
 * so two edits of overlapping names cannot deadlock. Every edit holds the domain's lock shared
 * first; an edit of more than NAME_LOCKS_MAX names holds it exclusively instead, which excludes
 * every other edit of the domain with one lock.
 */
export async function lockDnsNames(db: Queryable, domainId: string, names: Iterable<string>): Promise<void> {
  const sorted = [...new Set(names)].sort();
  if (sorted.length > NAME_LOCKS_MAX) {
    await db.query(`SELECT pg_advisory_xact_lock(hashtextextended($1, 0))`, [`dns_records|${domainId}`]);
    return;
  }
  await db.query(`SELECT pg_advisory_xact_lock_shared(hashtextextended($1, 0))`, [`dns_records|${domainId}`]);
  // unnest yields the array in its (sorted) order: the same order as one lock per query.
  await db.query(`SELECT count(pg_advisory_xact_lock(hashtextextended(n, 0))) FROM unnest($1::text[]) AS n`, [sorted.map((name) => `dns_records|${domainId}|${name}`)]);
}

/** How many records the domain has. */
export function countDnsRecords(db: Queryable, mode: Mode, domainId: string): Promise<number> {
  return records.count(db, mode, 'domain_id = $2', [domainId]);
}

/**
 * Serialises the edits of one domain that add records, until the transaction ends, so that each
 * counts the records of the one before it (zoneRecordLimit.ts). Every edit taking it has its name
 * locks already (lockDnsNames), so the locks are always taken in the same order.
 */
export async function lockDnsRecordCount(db: Queryable, domainId: string): Promise<void> {
  await db.query(`SELECT pg_advisory_xact_lock(hashtextextended($1, 0))`, [`dns_records_count|${domainId}`]);
}

/** Every record of a domain, gone with the domain (docs/api-guide.md, Operations and workflows). The count removed. */
export function deleteDnsRecordsOfDomain(db: Queryable, mode: Mode, domainId: string): Promise<number> {
  return records.delete(db, mode, 'domain_id = $2', [domainId]);
}
