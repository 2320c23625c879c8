import { RECORD_TYPE_SPECS, RECORD_TYPES, type RecordType } from './recordTypes.js';
import type { RecordIssue } from './recordSyntax.js';

export type { RecordIssue } from './recordSyntax.js';
export { RECORD_TYPES, TXT_MAX_LENGTH, txtStrings, type RecordType } from './recordTypes.js';
export { CAA_TAGS } from './caaRecords.js';

/**
 * DNS record rules that hold for every type: names, TTLs, the priority, and a record checked as a
 * whole. What each type accepts, where it may stand and its zone-file (presentation) form, which a
 * DNS provider is sent, are declared in recordTypes.ts. Names are relative to the domain, lower
 * case, `@` for the apex; host names in content are stored without their trailing dot.
 */

export const TTL_MIN = 60;
export const TTL_MAX = 86_400;
export const TTL_DEFAULT = 3_600;

/** What a client sets on a record, already normalised. */
export interface RecordFields {
  type: RecordType;
  name: string;
  content: string;
  ttl: number;
  /** MX and SRV only; null for the other types. */
  priority: number | null;
}

/** MX and SRV: the types whose priority is a field of its own. */
const WITH_PRIORITY = RECORD_TYPES.filter((type) => RECORD_TYPE_SPECS[type].priority !== undefined).join(' and ');
const NAME_LABEL = /^(?!-)[a-z0-9_-]{1,63}(?<!-)$/;

/**
 * `@`, or relative labels (letters, digits, `-`, `_`), the first of which may be the wildcard `*`.
 * An empty name is the apex too; `@` is the form stored and answered.
 */
export function normalizeRecordName(input: string): string {
  const name = input.trim().toLowerCase();
  return name === '' ? '@' : name;
}

function checkName(name: string, zone: string): string | undefined {
  if (name === '@') return undefined;
  if (name.endsWith('.')) return `Give the name relative to ${zone}, without a trailing dot ("www", or "@" for ${zone} itself)`;
  if (name === zone || name.endsWith(`.${zone}`)) return `Give the name relative to ${zone} ("www" for www.${zone}, "@" for ${zone})`;
  const labels = name.split('.');
  for (const [i, label] of labels.entries()) {
    if (i === 0 && label === '*') continue;
    if (!NAME_LABEL.test(label)) return `Label "${label.slice(0, 63)}" must be 1–63 letters, digits, "-" or "_" (not starting or ending with "-"); "*" only as the first label`;
  }
  if (name.length + 1 + zone.length > 253) return 'The full name may be at most 253 characters';
  return undefined;
}

/**
 * Checks a record as a whole against its type's rules and the zone it belongs to, and returns it
 * normalised, or every problem found. Shapes (type names, TTL range, integer priority) are the
 * request schema's job; this is the part that depends on the type and the domain.
 */
export function checkRecord(input: RecordFields, zone: string): { ok: true; value: RecordFields } | { ok: false; issues: RecordIssue[] } {
  const issues: RecordIssue[] = [];
  const name = normalizeRecordName(input.name);
  const nameProblem = checkName(name, zone);
  if (nameProblem) issues.push({ field: 'name', message: nameProblem, type: 'record_name_invalid' });
  else {
    const placement = RECORD_TYPE_SPECS[input.type].placement?.(name);
    if (placement) issues.push({ field: 'name', ...placement });
  }
  if (!Number.isInteger(input.ttl) || input.ttl < TTL_MIN || input.ttl > TTL_MAX) {
    issues.push({ field: 'ttl', message: `TTL must be ${TTL_MIN}–${TTL_MAX} seconds`, type: 'ttl_invalid' });
  }
  if (RECORD_TYPE_SPECS[input.type].priority) {
    if (input.priority === null) issues.push({ field: 'priority', message: `A ${input.type} record needs a priority (0–65535)`, type: 'priority_required' });
  } else if (input.priority !== null) {
    const inContent = input.type === 'HTTPS' || input.type === 'SVCB' ? `: a ${input.type} record’s SvcPriority is the first field of its content` : '';
    issues.push({ field: 'priority', message: `Only ${WITH_PRIORITY} records take a priority${inContent}`, type: 'priority_not_allowed' });
  }
  const content = RECORD_TYPE_SPECS[input.type].check(input.content.trim(), input.content);
  if ('field' in content) issues.push(content);
  if (issues.length > 0 || 'field' in content) return { ok: false, issues };
  return { ok: true, value: { type: input.type, name, content: content.content, ttl: input.ttl, priority: input.priority } };
}

/** The record's data in zone-file presentation format, priority included (what PowerDNS stores as `content`). */
export function presentationContent(record: Pick<RecordFields, 'type' | 'content' | 'priority'>): string {
  return RECORD_TYPE_SPECS[record.type].zoneFile.write(record);
}

/** The fully qualified name, without the trailing dot. */
export function absoluteName(name: string, zone: string): string {
  return name === '@' ? zone : `${name}.${zone}`;
}
