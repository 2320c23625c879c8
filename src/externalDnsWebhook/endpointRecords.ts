import ipaddr from 'ipaddr.js';
import type { components } from '../../client/src/index.js';
import { checkRecord, TTL_DEFAULT, TTL_MAX, TTL_MIN, type RecordFields, type RecordIssue, type RecordType, parseZoneFile, RECORD_TYPE_SPECS, RECORD_TYPES } from '../features/dns/index.js';
import type { Endpoint } from './protocol.js';
import { addToGroup } from '../grouping.js';

/**
 * external-dns endpoints and our DNS records, both ways (docs/external-dns.md). An endpoint is a
 * whole RRset named absolutely; a record is one value named relative to its domain. The rules of
 * each type are the api's own (src/features/dns/records.ts), so a target is checked and
 * normalised here exactly as the api will store it, and read back in the same form.
 */

/**
 * external-dns's record types that our records hold (its known types less DNAME, plus CAA), in its
 * order: the types declared with an `externalDns` place (src/features/dns/recordTypes.ts).
 */
export const ENDPOINT_TYPES: readonly RecordType[] = RECORD_TYPES.filter((type) => RECORD_TYPE_SPECS[type].externalDns !== undefined).sort(
  (a, b) => RECORD_TYPE_SPECS[a].externalDns! - RECORD_TYPE_SPECS[b].externalDns!,
);
const ENDPOINT_TYPE_SET: ReadonlySet<string> = new Set(ENDPOINT_TYPES);

/** A record as the api answers it (the fields used here). */
export type StoredRecord = Pick<components['schemas']['DnsRecord'], 'id' | 'type' | 'name' | 'content' | 'ttl' | 'priority' | 'version'>;

/** A name as external-dns compares it: lower case, without the trailing dot. */
export const fqdn = (name: string) => name.trim().toLowerCase().replace(/\.$/, '');

const relativeName = (zone: string, name: string) => (name === zone ? '@' : name.slice(0, -(zone.length + 1)));
const absoluteName = (zone: string, name: string) => (name === '@' ? zone : `${name}.${zone}`);

/** The zone `name` belongs to: the longest of `zones` that it is or ends in. */
export function zoneOf(zones: Iterable<string>, name: string): string | undefined {
  let best: string | undefined;
  for (const zone of zones) {
    if ((name === zone || name.endsWith(`.${zone}`)) && zone.length > (best?.length ?? -1)) best = zone;
  }
  return best;
}

/** A configured TTL within what records take; 0 (external-dns's "not configured") stays 0. */
export const clampTtl = (ttl: number) => (ttl <= 0 ? 0 : Math.min(TTL_MAX, Math.max(TTL_MIN, ttl)));

/** A TXT target as external-dns writes its own ownership records: one quoted string, `"` and `\` escaped. */
export const quoteTxt = (text: string) => `"${text.replace(/[\\"]/g, '\\$&')}"`;

/**
 * The text a TXT target stands for. external-dns's own values come quoted and hold commas
 * (`"heritage=external-dns,external-dns/owner=…"`); a user's may be bare. Quoted strings are read as
 * a zone file reads them (`\"`, `\DDD`, several strings joined); anything else is the text itself.
 */
export function txtText(target: string): string {
  const trimmed = target.trim();
  if (!trimmed.startsWith('"') || /[\r\n]/.test(trimmed)) return trimmed;
  try {
    const [entry, ...more] = parseZoneFile(`@ ${TTL_DEFAULT} IN TXT ${trimmed}`, { zone: 'txt.invalid' });
    if (entry && more.length === 0 && entry.rdata.every((token) => token.quoted)) return entry.rdata.map((token) => token.value).join('').trim();
  } catch {
    // Not zone-file strings (an unbalanced quote): the target is taken as written.
  }
  return trimmed;
}

/** One value of an RRset as external-dns writes it: MX and SRV with their priority in front, TXT quoted. */
function targetOf(record: Pick<StoredRecord, 'type' | 'content' | 'priority'>): string {
  if (record.type === 'TXT') return quoteTxt(record.content);
  if (RECORD_TYPE_SPECS[record.type].priority) return `${record.priority ?? 0} ${record.content}`;
  return record.content;
}

/** An ALIAS is our apex CNAME: external-dns asks for a CNAME there, and reads one back. */
const endpointType = (record: Pick<StoredRecord, 'type' | 'name'>) => (record.type === 'ALIAS' && record.name === '@' ? 'CNAME' : record.type);

/** external-dns's endpoints for a zone's records: one per name and type, its TTL the lowest (the one served). */
export function endpointsOf(zone: string, records: readonly StoredRecord[]): Endpoint[] {
  const sets = new Map<string, StoredRecord[]>();
  for (const record of records) {
    const type = endpointType(record);
    if (!ENDPOINT_TYPE_SET.has(type)) continue;
    const key = `${record.name} ${type}`;
    addToGroup(sets, key, record);
  }
  return [...sets.values()].map((set) => ({
    dnsName: absoluteName(zone, set[0]!.name),
    targets: ownershipFirst(set.map(targetOf)),
    recordType: endpointType(set[0]!),
    setIdentifier: '',
    recordTTL: Math.min(...set.map((record) => record.ttl)),
    labels: {},
    providerSpecific: [],
  }));
}

/** external-dns's TXT registry reads ownership from an RRset's first value only. */
function ownershipFirst(targets: string[]): string[] {
  const owned = (target: string) => target.startsWith('"heritage=external-dns,');
  return [...targets.filter(owned), ...targets.filter((target) => !owned(target))];
}

export type Checked<T> = { ok: true; value: T } | { ok: false; issues: RecordIssue[] };

const refused = (message: string, type: string, field: RecordIssue['field'] = 'content'): { ok: false; issues: RecordIssue[] } => ({
  ok: false,
  issues: [{ field, message, type }],
});

/** The RRset an endpoint names in `zone`: our type (an apex CNAME is an ALIAS) and relative name. */
export function rrsetOf(zone: string, endpoint: Pick<Endpoint, 'dnsName' | 'recordType'>): Checked<{ type: RecordType; name: string }> {
  const type = endpoint.recordType.toUpperCase();
  if (!ENDPOINT_TYPE_SET.has(type)) return refused(`Record type ${type.slice(0, 16)} is not supported; supported: ${ENDPOINT_TYPES.join(', ')}`, 'record_type_unsupported', 'name');
  const name = relativeName(zone, fqdn(endpoint.dnsName));
  return { ok: true, value: { type: (type === 'CNAME' && name === '@' ? 'ALIAS' : type) as RecordType, name } };
}

/** One target as the record the api stores for it, checked as the api checks it; `ttl` 0 means the default. */
export function recordOfTarget(zone: string, endpoint: Pick<Endpoint, 'dnsName' | 'recordType'>, target: string, ttl: number): Checked<RecordFields> {
  const rrset = rrsetOf(zone, endpoint);
  if (!rrset.ok) return rrset;
  const { type, name } = rrset.value;
  let content = target;
  let priority: number | null = null;
  if (RECORD_TYPE_SPECS[type].priority) {
    const match = /^\s*(\d{1,5})\s+(\S.*)$/.exec(target);
    if (!match || Number(match[1]) > 65_535) return refused(`A ${type} target starts with its priority (0–65535), e.g. "10 ${type === 'MX' ? 'mail.example.com' : '5 5060 sip.example.com'}"`, 'priority_required');
    priority = Number(match[1]);
    content = match[2]!;
  } else if (type === 'TXT') {
    content = txtText(target);
  }
  return checkRecord({ type, name, content: type === 'TXT' ? content : content.trim(), ttl: ttl || TTL_DEFAULT, priority }, zone);
}

/** What identifies a stored value within its RRset: addresses compare as addresses, the rest as stored. */
export function valueKey(record: { type: string; content: string; priority: number | null }): string {
  const content = (record.type === 'A' || record.type === 'AAAA') && ipaddr.isValid(record.content) ? ipaddr.parse(record.content).toNormalizedString() : record.content;
  return `${record.priority ?? ''} ${content}`;
}

/**
 * A desired endpoint in the form `GET /records` answers for it once applied, so that external-dns's
 * plan finds nothing left to change: targets normalised, TTL within range, no provider-specific
 * properties (none are supported; a current record never has them). Endpoints that no record could
 * hold are left out, with the reason, rather than failing the whole sync (docs/external-dns.md).
 */
export function adjustEndpoint(zones: Iterable<string>, endpoint: Endpoint): { endpoint: Endpoint } | { leftOut: string } {
  if (endpoint.setIdentifier !== '') return { leftOut: 'set identifiers (routing policies) are not supported' };
  const dnsName = fqdn(endpoint.dnsName);
  const recordTTL = clampTtl(endpoint.recordTTL);
  const adjusted = { ...endpoint, dnsName, recordType: endpoint.recordType.toUpperCase(), recordTTL, providerSpecific: [] };
  const zone = zoneOf(zones, dnsName);
  // Outside every zone: external-dns's domain filter leaves it out of the plan anyway.
  if (!zone) return { endpoint: adjusted };
  const targets: string[] = [];
  for (const target of endpoint.targets) {
    const record = recordOfTarget(zone, adjusted, target, recordTTL);
    if (!record.ok) return { leftOut: record.issues.map((issue) => issue.message).join('; ') };
    const value = targetOf(record.value);
    if (!targets.includes(value)) targets.push(value);
  }
  if (targets.length === 0) return { leftOut: 'it has no targets' };
  return { endpoint: { ...adjusted, targets } };
}
