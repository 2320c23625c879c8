import type { Db } from '../../db/pool.js';
import type { Principal } from '../../auth/principal.js';
import type { DomainName } from '../../domainName.js';
import { ApiError, type FieldError } from '../../errors.js';
import { activeDomainNamed } from '../domains/index.js';
import { applyRecordChanges, type ApplyRecordChangesProps, type RecordOperation } from './applyRecordChanges.js';
import { dnsRecordsAtNames, dnsRecordsOfDomain, type VersionedRecord } from './dnsRecords.repository.js';
import type { DnsProviders } from './provider/index.js';
import type { RecordFields } from './records.js';
import { RECORD_TYPE_SPECS, RECORD_TYPES } from './recordTypes.js';
import { inLineOrder, MAX_PROBLEMS, zoneEntries, type ZoneFileProblem } from './zoneFileParser.js';
import { FileRecords, recordKey, type FileRecord, type SkippedEntry } from './zoneFileRecords.js';
import { groupBy } from '../../grouping.js';
import { requireFileWithinLimit, zoneLimitOf } from './zoneRecordLimit.js';
import { modeOf } from '../../db/modeScope.js';

/** Records one import may hold: a large zone from another host fits, a runaway file does not. */
export const ZONE_FILE_MAX_RECORDS = 20_000;
/** Lines one file may have: ten a record leaves room for any exporter's comments, and bounds a file of nothing else. */
export const ZONE_FILE_MAX_LINES = 10 * ZONE_FILE_MAX_RECORDS;
/** An import reading its file gives the event loop back this often, so other requests wait no longer for it. */
const READ_SLICE_MS = 10;

/** 422 ZONE_FILE_INVALID: every problem found, each at its line (`loc: ["body", "line", "12"]`); nothing changed. */
export class ZoneFileInvalidError extends ApiError {
  constructor(problems: ZoneFileProblem[]) {
    const detail: FieldError[] = problems.map((p) => ({ loc: ['body', 'line', String(p.line)], msg: `Line ${p.line}: ${p.message}`, type: p.type }));
    super('ZONE_FILE_INVALID', detail);
  }
}

type Fields = Omit<RecordFields, 'name' | 'type'>;
export interface ZoneImportResult {
  create: (RecordFields & { line: number; id: string | null })[];
  update: (RecordFields & { line: number; id: string; previous: Fields })[];
  delete: (RecordFields & { id: string })[];
  skipped: SkippedEntry[];
}

export interface ImportZoneFileProps {
  db: Db;
  dnsProviders: DnsProviders;
  principal: Principal;
  orgId: string;
  domain: DomainName;
  text: string;
  /** `merge` keeps the records the file does not hold; `replace` deletes them. */
  mode: 'merge' | 'replace';
  dryRun: boolean;
  requestId: string;
  createdIdOf?: (index: number) => string | undefined;
  /** The events of the change, derived from the request so a re-run writes the same ones (applyRecordChanges). */
  eventSeedOf?: ApplyRecordChangesProps['eventSeedOf'];
  /** Admits (or refuses) the number of records the import is about to change; not called for a dry run or a file that changes nothing. */
  admitChanges?: (changes: number) => Promise<void>;
}

/** The file's records, read entry by entry until `maxRecords` are; a step ends after each, where a caller may pause. */
function* readingSteps(text: string, zone: string, syntax: ZoneFileProblem[], read: FileRecords, maxRecords = Infinity): Generator<void, void, undefined> {
  for (const entry of zoneEntries(text, { zone, maxEntries: ZONE_FILE_MAX_RECORDS, maxLines: ZONE_FILE_MAX_LINES }, syntax)) {
    read.add(entry);
    if (read.full || read.records.length >= maxRecords) return;
    yield;
  }
}

/** The problems of the file's syntax if it has any, else its records', as 422; else what it holds. */
function readingResult(syntax: ZoneFileProblem[], read: FileRecords): { records: FileRecord[]; skipped: SkippedEntry[] } {
  if (syntax.length > 0) throw new ZoneFileInvalidError(inLineOrder(syntax));
  if (read.problems.length > 0) throw new ZoneFileInvalidError(read.problems.slice(0, MAX_PROBLEMS));
  return { records: read.records, skipped: read.skipped };
}

/**
 * Parsed and checked, or 422 with every problem at its line: the file's own (its syntax) if it has
 * any, else its records'. Each entry is converted as it is read, so only the records are held.
 */
export function readZoneFile(text: string, zone: string): { records: FileRecord[]; skipped: SkippedEntry[] } {
  const syntax: ZoneFileProblem[] = [];
  const read = new FileRecords(zone);
  const steps = readingSteps(text, zone, syntax, read);
  while (!steps.next().done);
  return readingResult(syntax, read);
}

/**
 * readZoneFile for a request: every READ_SLICE_MS the event loop is given back to the other
 * requests. With `maxRecords`, the reading stops once the file has shown that many.
 */
export async function readZoneFileInSlices(text: string, zone: string, maxRecords?: number): Promise<{ records: FileRecord[]; skipped: SkippedEntry[] }> {
  const syntax: ZoneFileProblem[] = [];
  const read = new FileRecords(zone);
  const steps = readingSteps(text, zone, syntax, read, maxRecords);
  let sliceStart = performance.now();
  while (!steps.next().done) {
    if (performance.now() - sliceStart < READ_SLICE_MS) continue;
    await new Promise((resolve) => setImmediate(resolve));
    sliceStart = performance.now();
  }
  return readingResult(syntax, read);
}

const fieldsOf = (r: RecordFields): RecordFields => ({ type: r.type, name: r.name, content: r.content, ttl: r.ttl, priority: r.priority });
const rrsetKey = (r: Pick<RecordFields, 'name' | 'type'>) => `${r.name}\n${r.type}`;
/** Types of which a name holds one record at most (CNAME, ALIAS): a different one in the file replaces it, even in a merge. */
const SINGLE_VALUED: ReadonlySet<string> = new Set(RECORD_TYPES.filter((type) => RECORD_TYPE_SPECS[type].singleValued));

/**
 * What makes the domain's records hold the file's: per RRset (name and type), a record in both
 * (same data) is kept, or updated when only its TTL differs; in `replace`, the rest are paired into
 * updates (a changed address keeps its record id) and what is left is created or deleted; in
 * `merge`, the file's other records are created and the domain's kept, except that a single-valued
 * type (CNAME) is updated in place. Importing the same file twice changes nothing the second time.
 */
export function planImport(existing: VersionedRecord[], file: FileRecord[], mode: ImportZoneFileProps['mode']): Omit<ZoneImportResult, 'skipped'> {
  const plan: Omit<ZoneImportResult, 'skipped'> = { create: [], update: [], delete: [] };
  const have = groupBy(existing, rrsetKey);
  const want = groupBy(file, rrsetKey);
  const update = (row: VersionedRecord, to: FileRecord) => plan.update.push({ ...fieldsOf(to), line: to.line, id: row.id, previous: { content: row.content, ttl: row.ttl, priority: row.priority } });
  for (const [key, wanted] of want) {
    const rows = new Map((have.get(key) ?? []).map((r) => [recordKey(r), r]));
    const unmatched: FileRecord[] = [];
    for (const record of wanted) {
      const row = rows.get(recordKey(record));
      if (!row) unmatched.push(record);
      else {
        rows.delete(recordKey(record));
        if (row.ttl !== record.ttl) update(row, record);
      }
    }
    const left = [...rows.values()];
    const pairs = mode === 'replace' || SINGLE_VALUED.has(wanted[0]!.type) ? Math.min(left.length, unmatched.length) : 0;
    for (let i = 0; i < pairs; i += 1) update(left[i]!, unmatched[i]!);
    for (const record of unmatched.slice(pairs)) plan.create.push({ ...fieldsOf(record), line: record.line, id: null });
    if (mode === 'replace') for (const row of left.slice(pairs)) plan.delete.push({ ...fieldsOf(row), id: row.id });
  }
  if (mode === 'replace') {
    for (const [key, rows] of have) if (!want.has(key)) for (const row of rows) plan.delete.push({ ...fieldsOf(row), id: row.id });
  }
  return plan;
}

/**
 * Imports a zone file into the domain: parsed and checked, compared with the domain's records, and
 * the difference applied through the batch path (applyRecordChanges: all or nothing, the names
 * locked, the zone's record limit, the provider sent one atomic change, audit and events as for any
 * edit). A file of more records than the zone may hold is refused as soon as it has shown them.
 * Versions read here are checked under the locks, so an edit made in between answers 409
 * VERSION_MISMATCH and nothing changes. A dry run makes every check of the real one, under the same locks, and writes nothing.
 */
export async function importZoneFile(props: ImportZoneFileProps): Promise<ZoneImportResult> {
  const domain = await activeDomainNamed(props.db, modeOf(props.principal.livemode), props.orgId, props.domain, 'a zone file can be imported');
  const zoneLimit = await zoneLimitOf(props.db, props.orgId);
  // Read no further than the limit allows: a file of more records is refused, whatever the rest holds.
  const { records, skipped } = await readZoneFileInSlices(props.text, domain.name, zoneLimit.limit + 1);
  requireFileWithinLimit(zoneLimit, records.length);
  // A merge compares only the file's names (planImport looks at no other), so a file into a zone of
  // 50,000 records reads the few it touches, not the whole zone (docs/bench.md, Scale).
  const existing =
    props.mode === 'merge'
      ? await dnsRecordsAtNames(props.db, modeOf(props.principal.livemode), { domainId: domain.id, names: [...new Set(records.map((r) => r.name))] })
      : await dnsRecordsOfDomain(props.db, modeOf(props.principal.livemode), domain.id);
  const plan = planImport(existing, records, props.mode);
  const versions = new Map(existing.map((r) => [r.id, r.version]));
  // Deletes first: a record replaced by another of its name (a CNAME by an A) must be gone before the other is checked.
  const operations: RecordOperation[] = [
    ...plan.delete.map((d): RecordOperation => ({ op: 'delete', id: d.id, expectedVersion: versions.get(d.id) })),
    ...plan.update.map((u): RecordOperation => ({ op: 'update', id: u.id, changes: { content: u.content, ttl: u.ttl, priority: u.priority }, expectedVersion: versions.get(u.id) })),
    ...plan.create.map((c): RecordOperation => ({ op: 'create', record: fieldsOf(c) })),
  ];
  if (operations.length === 0) return { ...plan, skipped };
  if (!props.dryRun) await props.admitChanges?.(operations.length);
  const results = await applyRecordChanges({
    db: props.db,
    dnsProviders: props.dnsProviders,
    principal: props.principal,
    orgId: props.orgId,
    domain: props.domain,
    operations,
    shape: 'batch',
    requestId: props.requestId,
    dryRun: props.dryRun,
    ...(props.createdIdOf ? { createdIdOf: props.createdIdOf } : {}),
    ...(props.eventSeedOf ? { eventSeedOf: props.eventSeedOf } : {}),
  });
  if (!props.dryRun) {
    const created = results.flatMap((r) => (r.op === 'create' ? [r.record.id] : []));
    plan.create.forEach((c, i) => (c.id = created[i] ?? null));
  }
  return { ...plan, skipped };
}
