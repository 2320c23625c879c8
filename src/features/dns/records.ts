import { isIPv4, isIPv6 } from 'node:net';
import { HOST_HINT, PRINTABLE_ASCII, absolute, contentIssue, hostName, type ContentCheck, type RecordIssue } from './recordSyntax.js';
import { checkSvcb, presentSvcb } from './svcbRecords.js';
import { checkDs, checkSshfp, checkTlsa } from './digestRecords.js';
import { checkNaptr, presentNaptr } from './naptrRecords.js';

import type { RecordType } from '../../dnsRecordTypes.js';

export type { RecordIssue } from './recordSyntax.js';
export { RECORD_TYPES, type RecordType } from '../../dnsRecordTypes.js';

/**
 * DNS record rules, in one place: what each type accepts (of the types src/dnsRecordTypes.ts names),
 * the normalised form that is stored, and the zone-file (presentation) form a DNS provider is sent.
 * Names are relative to the domain, lower case, `@` for the apex; host names in content are stored
 * without their trailing dot.
 */

export const TTL_MIN = 60;
export const TTL_MAX = 86_400;
export const TTL_DEFAULT = 3_600;
/** Longest TXT text accepted (printable ASCII), sent as strings of at most 255 characters. */
export const TXT_MAX_LENGTH = 2_048;
const TXT_STRING_MAX = 255;
export const CAA_TAGS = ['issue', 'issuewild', 'iodef'] as const;

/** What a client sets on a record, already normalised. */
export interface RecordFields {
  type: RecordType;
  name: string;
  content: string;
  ttl: number;
  /** MX and SRV only; null for the other types. */
  priority: number | null;
}

const TAKES_PRIORITY: ReadonlySet<RecordType> = new Set(['MX', 'SRV']);
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

function checkContent(fields: RecordFields): ContentCheck {
  const bad = contentIssue;
  const content = fields.content.trim();
  switch (fields.type) {
    case 'A':
      return isIPv4(content) ? { content } : bad('Must be an IPv4 address, e.g. 192.0.2.1', 'ipv4_invalid');
    case 'AAAA':
      return isIPv6(content) && !content.includes('%') ? { content: content.toLowerCase() } : bad('Must be an IPv6 address, e.g. 2001:db8::1', 'ipv6_invalid');
    case 'CNAME':
    case 'ALIAS':
    case 'PTR': {
      const host = hostName(content, { underscores: true });
      return host ? { content: host } : bad(`Must be ${HOST_HINT}`, 'hostname_invalid');
    }
    case 'NS':
    case 'MX': {
      const host = hostName(content, { underscores: false });
      return host ? { content: host } : bad(`Must be ${HOST_HINT}`, 'hostname_invalid');
    }
    case 'SRV': {
      const match = /^(\d{1,5})\s+(\d{1,5})\s+(\S+)$/.exec(content);
      if (!match) return bad('Must be "weight port target", e.g. "5 5060 sip.example.com" (the priority goes in `priority`)', 'srv_invalid');
      const [weight, port] = [Number(match[1]), Number(match[2])];
      if (weight > 65_535 || port > 65_535) return bad('Weight and port must be 0–65535', 'srv_invalid');
      const target = match[3] === '.' ? '.' : hostName(match[3]!, { underscores: false });
      if (!target) return bad(`The target must be ${HOST_HINT}, or "." for no service`, 'hostname_invalid');
      return { content: `${weight} ${port} ${target}` };
    }
    case 'TXT':
      if (!PRINTABLE_ASCII.test(fields.content)) return bad('TXT text must be printable ASCII (no control or non-ASCII characters)', 'txt_invalid');
      if (fields.content.length > TXT_MAX_LENGTH) return bad(`TXT text may be at most ${TXT_MAX_LENGTH} characters`, 'txt_too_long');
      return { content: fields.content };
    case 'CAA':
      return checkCaa(content);
    case 'HTTPS':
    case 'SVCB':
      return checkSvcb(fields.type, content);
    case 'TLSA':
      return checkTlsa(content);
    case 'SSHFP':
      return checkSshfp(content);
    case 'DS':
      return checkDs(content);
    case 'NAPTR':
      return checkNaptr(content);
  }
}

/**
 * `mailto:local@domain` or `http(s)://…`, no white space. Parsed by position rather than with a
 * backtracking pattern (`\S+@\S+` is quadratic on a long value without `@`).
 */
function isIodefUrl(value: string): boolean {
  if (/\s/.test(value)) return false;
  const lower = value.toLowerCase();
  if (lower.startsWith('mailto:')) {
    const at = value.indexOf('@', 7);
    return at > 7 && at < value.length - 1;
  }
  const scheme = lower.startsWith('https://') ? 8 : lower.startsWith('http://') ? 7 : 0;
  return scheme > 0 && value.length > scheme;
}

function checkCaa(content: string): ContentCheck {
  const bad = (message: string): RecordIssue => ({ field: 'content', message, type: 'caa_invalid' });
  const match = /^(\d{1,3})\s+([A-Za-z0-9]+)\s+(.+)$/.exec(content);
  if (!match) return bad('Must be "flags tag value", e.g. 0 issue "letsencrypt.org"');
  const flags = Number(match[1]);
  const tag = match[2]!.toLowerCase();
  const value = match[3]!.replace(/^"(.*)"$/, '$1');
  if (flags > 255) return bad('Flags must be 0–255 (0, or 128 for critical)');
  if (!(CAA_TAGS as readonly string[]).includes(tag)) return bad(`The tag must be one of ${CAA_TAGS.join(', ')}`);
  // The content is stored and sent in presentation form, where a backslash escapes what follows it
  // (the last one would escape the closing quote); no issuer, parameter or URL needs one.
  if (!PRINTABLE_ASCII.test(value) || value.includes('"') || value.includes('\\')) return bad('The value must be printable ASCII without double quotes or backslashes');
  if (tag === 'iodef') {
    if (!isIodefUrl(value)) return bad('An iodef value must be a mailto: or http(s):// URL');
  } else {
    const [issuer = '', ...parameters] = value.split(';');
    const issuerOk = issuer.trim() === '' || hostName(issuer, { underscores: false }) !== undefined;
    const parametersOk = parameters.every((p) => p.trim() === '' || /^\s*[A-Za-z0-9]+=\S*\s*$/.test(p));
    if (!issuerOk || !parametersOk || (issuer.trim() === '' && parameters.length === 0)) {
      return bad(`An ${tag} value must be a CA's domain name (e.g. "letsencrypt.org"), optionally followed by "; key=value" parameters, or ";" to allow no CA`);
    }
  }
  return { content: `${flags} ${tag} "${value}"` };
}

/** Where a type may stand: the names its rules exclude or require (the name itself is valid). */
function placementProblem(type: RecordType, name: string): Omit<RecordIssue, 'field'> | undefined {
  const apex = name === '@';
  switch (type) {
    case 'CNAME':
      return apex ? { message: 'A CNAME cannot be at the apex: the zone’s SOA and NS records live there; use an ALIAS there instead', type: 'cname_at_apex' } : undefined;
    case 'ALIAS':
      return apex ? undefined : { message: 'An ALIAS record belongs at the apex ("@"), where a CNAME cannot be; use a CNAME elsewhere', type: 'alias_not_at_apex' };
    case 'NS':
      if (apex) return { message: 'The apex NS records are the domain’s name servers: change them on the domain', type: 'ns_name_invalid' };
      return name.startsWith('*') ? { message: 'NS records cannot be wildcards', type: 'ns_name_invalid' } : undefined;
    case 'DS':
      if (apex) return { message: 'The apex DS records are published at the registry (DNSSEC on the domain); a DS record here belongs at a delegated child, next to its NS records', type: 'ds_at_apex' };
      return name.startsWith('*') ? { message: 'DS records cannot be wildcards: give the delegated child’s name', type: 'ds_name_invalid' } : undefined;
    case 'SRV':
      return /^_[a-z0-9-]+\._[a-z0-9-]+(\.|$)/.test(name) ? undefined : { message: 'An SRV name starts with _service._protocol, e.g. "_sip._tcp"', type: 'srv_name_invalid' };
    case 'TLSA': {
      const port = /^_(\d{1,5})\._[a-z0-9-]+(\.|$)/.exec(name);
      return port && Number(port[1]) <= 65_535 ? undefined : { message: 'A TLSA name starts with _port._protocol, e.g. "_443._tcp.www" or "_25._tcp.mail"', type: 'tlsa_name_invalid' };
    }
    default:
      return undefined;
  }
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
    const placement = placementProblem(input.type, name);
    if (placement) issues.push({ field: 'name', ...placement });
  }
  if (!Number.isInteger(input.ttl) || input.ttl < TTL_MIN || input.ttl > TTL_MAX) {
    issues.push({ field: 'ttl', message: `TTL must be ${TTL_MIN}–${TTL_MAX} seconds`, type: 'ttl_invalid' });
  }
  if (TAKES_PRIORITY.has(input.type)) {
    if (input.priority === null) issues.push({ field: 'priority', message: `A ${input.type} record needs a priority (0–65535)`, type: 'priority_required' });
  } else if (input.priority !== null) {
    const inContent = input.type === 'HTTPS' || input.type === 'SVCB' ? `: a ${input.type} record’s SvcPriority is the first field of its content` : '';
    issues.push({ field: 'priority', message: `Only MX and SRV records take a priority${inContent}`, type: 'priority_not_allowed' });
  }
  const content = checkContent(input);
  if ('field' in content) issues.push(content);
  if (issues.length > 0 || 'field' in content) return { ok: false, issues };
  return { ok: true, value: { type: input.type, name, content: content.content, ttl: input.ttl, priority: input.priority } };
}

/** TXT text as zone-file strings: quoted, `"` and `\` escaped, split every 255 characters. */
export function txtStrings(text: string): string {
  const chunks: string[] = [];
  for (let i = 0; i < text.length; i += TXT_STRING_MAX) chunks.push(text.slice(i, i + TXT_STRING_MAX));
  if (chunks.length === 0) chunks.push('');
  return chunks.map((chunk) => `"${chunk.replace(/[\\"]/g, '\\$&')}"`).join(' ');
}

/** The record's data in zone-file presentation format, priority included (what PowerDNS stores as `content`). */
export function presentationContent(record: Pick<RecordFields, 'type' | 'content' | 'priority'>): string {
  switch (record.type) {
    case 'A':
    case 'AAAA':
    case 'CAA':
    case 'TLSA':
    case 'SSHFP':
    case 'DS':
      return record.content;
    case 'CNAME':
    case 'NS':
    case 'ALIAS':
    case 'PTR':
      return absolute(record.content);
    case 'HTTPS':
    case 'SVCB':
      return presentSvcb(record.content);
    case 'NAPTR':
      return presentNaptr(record.content);
    case 'MX':
      return `${record.priority ?? 0} ${absolute(record.content)}`;
    case 'SRV': {
      const [weight, port, target] = record.content.split(' ');
      return `${record.priority ?? 0} ${weight} ${port} ${absolute(target!)}`;
    }
    case 'TXT':
      return txtStrings(record.content);
  }
}

/** The fully qualified name, without the trailing dot. */
export function absoluteName(name: string, zone: string): string {
  return name === '@' ? zone : `${name}.${zone}`;
}
