import { RECORD_TYPES, checkRecord, type RecordFields } from './records.js';
import { RECORD_TYPE_SPECS, isRecordType, quoted, type RecordType } from './recordTypes.js';
import { ALIAS_GENERIC_TYPE, aliasTargetOfGeneric } from './aliasGenericForm.js';
import { absolutize, inZone, MAX_PROBLEMS, moveName, shown, type ZoneEntry, type ZoneFileProblem, type ZoneToken } from './zoneFileParser.js';

/**
 * A zone file's entries as records of ours: the presentation form of each type turned into the
 * fields the API takes (MX and SRV priority apart, TXT strings joined, names in the data made
 * absolute), then checked by the same rules as every other record (records.ts). What we do not
 * import is reported with its line, never dropped silently.
 */
export interface FileRecord extends RecordFields {
  line: number;
}

export interface SkippedEntry {
  line: number;
  type: string;
  name: string;
  reason: string;
}

const DNSSEC_TYPES = new Set(['RRSIG', 'NSEC', 'NSEC3', 'NSEC3PARAM', 'DNSKEY', 'CDS', 'CDNSKEY']);

/** A name from the data, absolute with its trailing dot (`.` stays the root); one in the zone a file was copied from is moved onto ours. */
function dataName(token: ZoneToken, entry: ZoneEntry, zone: string): string {
  let name = absolutize(token.raw, entry.origin);
  if (entry.copiedFrom && inZone(name, entry.copiedFrom)) name = moveName(name, entry.copiedFrom, zone);
  return name === '' ? '.' : `${name}.`;
}

/**
 * The data as the record validator takes it, as each type's declaration reads it (recordTypes.ts):
 * the field count checked where declared, the priority apart, names in the data made absolute.
 */
function fieldsOf(entry: ZoneEntry & { type: RecordType }, zone: string): { content: string; priority: number | null } | string {
  const { type, rdata } = entry;
  const { priority: priorityWord, zoneFile } = RECORD_TYPE_SPECS[type];
  const shape = zoneFile.fields;
  if (shape && rdata.length !== shape.count) return `${type} takes ${shape.count === 1 ? 'one field' : `${shape.count} fields`}, e.g. "${type} ${shape.example}"; found ${rdata.length}`;
  if (zoneFile.read) {
    const read = zoneFile.read(rdata);
    return typeof read === 'string' ? read : { content: read.content, priority: null };
  }
  const tokens = rdata.map((t, i) => (i === zoneFile.nameAt && !t.quoted ? dataName(t, entry, zone) : t.quoted ? quoted(t.value) : t.raw));
  if (priorityWord) {
    const priority = /^\d{1,5}$/.test(rdata[0]!.raw) ? Number(rdata[0]!.raw) : NaN;
    if (!(priority <= 65_535)) return `The ${priorityWord} must be 0–65535, not "${rdata[0]!.raw.slice(0, 20)}"`;
    return { content: tokens.slice(1).join(' '), priority };
  }
  return { content: tokens.join(' '), priority: null };
}

const relative = (name: string, zone: string) => (name === zone ? '@' : name.slice(0, -(zone.length + 1)));

/** Why an entry is not imported, or undefined when it is a record we serve. */
function skipReason(entry: ZoneEntry, zone: string): string | undefined {
  if (entry.type === 'SOA') return 'The SOA record is the host’s own; it is not imported';
  if (entry.type === 'NS' && entry.name === zone) return 'The apex NS records are the domain’s name servers, set on the domain; they are not imported';
  if (DNSSEC_TYPES.has(entry.type)) return `${entry.type} records are made by the signer: turn DNSSEC on for the domain instead`;
  if (!isRecordType(entry.type)) return `${entry.type} records are not served here (served: ${RECORD_TYPES.join(', ')})`;
  return undefined;
}

/** An ALIAS written in RFC 3597's generic form (as our exports write it) read as an ALIAS, or what is wrong with it. */
function asAlias(entry: ZoneEntry): ZoneEntry | string {
  const read = aliasTargetOfGeneric(entry.rdata.map((t) => t.raw));
  if ('error' in read) return read.error;
  return { ...entry, type: 'ALIAS', rdata: [{ raw: read.target, value: read.target, quoted: false }] };
}

/**
 * The records the file holds, each checked; the entries skipped, with why; and every problem with
 * its line (a record the validator refuses is a problem, not a skip: the import would lose it).
 * Entries are added one at a time, as they are read; once `full` (MAX_PROBLEMS problems) there is
 * no point in reading further.
 */
export class FileRecords {
  readonly records: FileRecord[] = [];
  readonly skipped: SkippedEntry[] = [];
  readonly problems: ZoneFileProblem[] = [];
  private readonly seen = new Map<string, number>();

  constructor(private readonly zone: string) {}

  get full(): boolean {
    return this.problems.length >= MAX_PROBLEMS;
  }

  add(written: ZoneEntry): void {
    const { zone, problems } = this;
    const entry = written.type === ALIAS_GENERIC_TYPE ? asAlias(written) : written;
    if (typeof entry === 'string') {
      problems.push({ line: written.line, message: entry, type: 'record_invalid' });
      return;
    }
    const name = relative(entry.name, zone);
    const reason = skipReason(entry, zone);
    if (reason) {
      this.skipped.push({ line: entry.line, type: entry.type, name, reason });
      return;
    }
    // skipReason lets only the types we serve through.
    const ours = entry as ZoneEntry & { type: RecordType };
    const fields = fieldsOf(ours, zone);
    if (typeof fields === 'string') {
      problems.push({ line: entry.line, message: fields, type: 'record_invalid' });
      return;
    }
    const checked = checkRecord({ type: ours.type, name, ttl: entry.ttl, ...fields }, zone);
    if (!checked.ok) {
      for (const issue of checked.issues) problems.push({ line: entry.line, message: `${entry.type} ${shown(name)}: ${issue.message}`, type: issue.type });
      return;
    }
    const key = recordKey(checked.value);
    const earlier = this.seen.get(key);
    if (earlier !== undefined) {
      this.skipped.push({ line: entry.line, type: entry.type, name, reason: `The same record as on line ${earlier}` });
      return;
    }
    this.seen.set(key, entry.line);
    this.records.push({ ...checked.value, line: entry.line });
  }
}

/** FileRecords of every entry, until MAX_PROBLEMS problems (`entries` is not read further). */
export function recordsOfEntries(entries: Iterable<ZoneEntry>, zone: string): FileRecords {
  const read = new FileRecords(zone);
  for (const entry of entries) {
    if (read.full) break;
    read.add(entry);
  }
  return read;
}

/** A record's identity within its RRset: what tells two records of one name and type apart. */
export const recordKey = (r: Pick<RecordFields, 'name' | 'type' | 'priority' | 'content'>) => `${r.name}\n${r.type}\n${r.priority ?? ''}\n${r.content}`;
