import { isIPv4, isIPv6 } from 'node:net';
import { HOST_HINT, PRINTABLE_ASCII, absolute, contentIssue, hostName, type ContentCheck, type RecordIssue } from './recordSyntax.js';
import type { ZoneToken } from './zoneFileTokens.js';
import { checkSvcb, presentSvcb } from './svcbRecords.js';
import { checkDs, checkSshfp, checkTlsa } from './digestRecords.js';
import { checkNaptr, presentNaptr } from './naptrRecords.js';
import { checkCaa } from './caaRecords.js';
import { RECORD_TYPES, type RecordType } from '../../dnsRecordTypes.js';

/**
 * Every record type the service serves, declared once: what its content accepts and stores, where it
 * may stand, how a zone file writes and reads it, and whether external-dns asks for it. The API's
 * type list (RECORD_TYPES, so the OpenAPI enum), the record checks (records.ts), the zone file's
 * writer and reader (zoneFileExport.ts, zoneFileRecords.ts), the name rules of a change
 * (applyRecordChanges.ts) and the external-dns role derive from this table; the copies other
 * packages keep (CLI, dashboard, Terraform provider) are checked against it by recordTypes.test.ts.
 * docs/architecture.md, "Adding a record type", is the checklist.
 */
export interface RecordTypeSpec {
  /** The content's stored (normalised) form, or what is wrong with it; `asGiven` is the content untrimmed. */
  check: (content: string, asGiven: string) => ContentCheck;
  /** MX and SRV: the priority is a field of its own, the data's first field in a zone file (named so there). */
  priority?: 'preference' | 'priority';
  /** Where it may stand: what its rules exclude or require of the (valid) name. */
  placement?: (name: string) => Omit<RecordIssue, 'field'> | undefined;
  /** What it may not share its name with: the conflict among every record the name would have. */
  sharesName?: (name: string, records: readonly { type: string }[]) => string | undefined;
  /** A name holds one at most: an import replaces it, even in a merge. */
  singleValued?: true;
  /** Its data holds text whose case matters (the rest compare case-insensitively). */
  caseMatters?: true;
  zoneFile: {
    /** The data in presentation form, priority in front (what PowerDNS stores as `content`). */
    write: (record: { content: string; priority: number | null }) => string;
    /** The field of the data that is a domain name (RFC 1035, 2782, 3403, 9460): relative there means relative to the origin. */
    nameAt?: number;
    /** The data's field count and an example, for a message naming the line rather than a validator's guess. */
    fields?: { count: number; example: string };
    /** The content from the data's tokens when it is not the tokens as written, or what is wrong. */
    read?: (rdata: readonly ZoneToken[]) => { content: string } | string;
  };
  /** A record of the type in its stored form, which every copy's test round-trips (recordTypes.test.ts). */
  example: { name: string; content: string; priority?: number };
  /** external-dns asks for it: its place in the list the webhook names (external-dns's own order, then CAA). */
  externalDns?: number;
}

/** Longest TXT text accepted (printable ASCII), sent as strings of at most 255 characters. */
export const TXT_MAX_LENGTH = 2_048;
const TXT_STRING_MAX = 255;

/** TXT text as zone-file strings: quoted, `"` and `\` escaped, split every 255 characters. */
export function txtStrings(text: string): string {
  const chunks: string[] = [];
  for (let i = 0; i < text.length; i += TXT_STRING_MAX) chunks.push(text.slice(i, i + TXT_STRING_MAX));
  if (chunks.length === 0) chunks.push('');
  return chunks.map((chunk) => `"${chunk.replace(/[\\"]/g, '\\$&')}"`).join(' ');
}

/** A zone-file string: quoted, `"` and `\` escaped. */
export const quoted = (value: string) => `"${/[\\"]/.test(value) ? value.replace(/[\\"]/g, '\\$&') : value}"`;

/** 32 bytes of a SHA-256 digest, in the examples. */
const HEX_EXAMPLE = 'a'.repeat(64);
const bad = contentIssue;
const asIs = (record: { content: string }) => record.content;
const asHost = (record: { content: string }) => absolute(record.content);

function host(content: string, underscores: boolean): ContentCheck {
  const name = hostName(content, { underscores });
  return name ? { content: name } : bad(`Must be ${HOST_HINT}`, 'hostname_invalid');
}

function checkSrv(content: string): ContentCheck {
  const match = /^(\d{1,5})\s+(\d{1,5})\s+(\S+)$/.exec(content);
  if (!match) return bad('Must be "weight port target", e.g. "5 5060 sip.example.com" (the priority goes in `priority`)', 'srv_invalid');
  const [weight, port] = [Number(match[1]), Number(match[2])];
  if (weight > 65_535 || port > 65_535) return bad('Weight and port must be 0–65535', 'srv_invalid');
  const target = match[3] === '.' ? '.' : hostName(match[3]!, { underscores: false });
  if (!target) return bad(`The target must be ${HOST_HINT}, or "." for no service`, 'hostname_invalid');
  return { content: `${weight} ${port} ${target}` };
}

function checkTxt(asGiven: string): ContentCheck {
  if (!PRINTABLE_ASCII.test(asGiven)) return bad('TXT text must be printable ASCII (no control or non-ASCII characters)', 'txt_invalid');
  if (asGiven.length > TXT_MAX_LENGTH) return bad(`TXT text may be at most ${TXT_MAX_LENGTH} characters`, 'txt_too_long');
  return { content: asGiven };
}

const count = (records: readonly { type: string }[], ...types: string[]) => records.filter((r) => types.includes(r.type)).length;

const specs = {
  A: {
    example: { name: 'www', content: '192.0.2.10' },
    check: (content) => (isIPv4(content) ? { content } : bad('Must be an IPv4 address, e.g. 192.0.2.1', 'ipv4_invalid')),
    zoneFile: { write: asIs, fields: { count: 1, example: '192.0.2.1' } },
    externalDns: 1,
  },
  AAAA: {
    example: { name: 'www', content: '2001:db8::10' },
    check: (content) => (isIPv6(content) && !content.includes('%') ? { content: content.toLowerCase() } : bad('Must be an IPv6 address, e.g. 2001:db8::1', 'ipv6_invalid')),
    zoneFile: { write: asIs, fields: { count: 1, example: '2001:db8::1' } },
    externalDns: 2,
  },
  CNAME: {
    example: { name: 'api', content: 'lb.example.net' },
    check: (content) => host(content, true),
    placement: (name) => (name === '@' ? { message: 'A CNAME cannot be at the apex: the zone’s SOA and NS records live there; use an ALIAS there instead', type: 'cname_at_apex' } : undefined),
    // RFC 1034 3.6.2: a CNAME shares its name with nothing.
    sharesName: (name, records) => {
      if (count(records, 'CNAME') === 0 || records.length <= 1) return undefined;
      const others = [...new Set(records.filter((r) => r.type !== 'CNAME').map((r) => r.type))];
      return others.length === 0 ? `"${name}" can have only one CNAME record` : `"${name}" cannot have both a CNAME and ${others.join(', ')} records: a CNAME shares its name with nothing`;
    },
    singleValued: true,
    zoneFile: { write: asHost, nameAt: 0, fields: { count: 1, example: 'target.example.net.' } },
    externalDns: 3,
  },
  MX: {
    example: { name: '@', content: 'mail.example.net', priority: 10 },
    check: (content) => host(content, false),
    priority: 'preference',
    zoneFile: { write: (r) => `${r.priority ?? 0} ${absolute(r.content)}`, nameAt: 1, fields: { count: 2, example: '10 mail.example.net.' } },
    externalDns: 5,
  },
  TXT: {
    example: { name: '@', content: 'v=spf1 include:_spf.example.net -all' },
    check: (_content, asGiven) => checkTxt(asGiven),
    caseMatters: true,
    zoneFile: {
      write: (r) => txtStrings(r.content),
      read: (rdata) => (rdata.length === 0 ? 'TXT needs at least one string, e.g. TXT "v=spf1 -all"' : { content: rdata.map((t) => t.value).join('') }),
    },
    externalDns: 4,
  },
  NS: {
    example: { name: 'child', content: 'ns1.example.net' },
    check: (content) => host(content, false),
    placement: (name) => {
      if (name === '@') return { message: 'The apex NS records are the domain’s name servers: change them on the domain', type: 'ns_name_invalid' };
      return name.startsWith('*') ? { message: 'NS records cannot be wildcards', type: 'ns_name_invalid' } : undefined;
    },
    zoneFile: { write: asHost, nameAt: 0, fields: { count: 1, example: 'ns1.example.net.' } },
    externalDns: 7,
  },
  SRV: {
    example: { name: '_sip._tcp', content: '5 5060 sip.example.net', priority: 20 },
    check: checkSrv,
    priority: 'priority',
    placement: (name) => (/^_[a-z0-9-]+\._[a-z0-9-]+(\.|$)/.test(name) ? undefined : { message: 'An SRV name starts with _service._protocol, e.g. "_sip._tcp"', type: 'srv_name_invalid' }),
    zoneFile: {
      write: (r) => {
        const [weight, port, target] = r.content.split(' ');
        return `${r.priority ?? 0} ${weight} ${port} ${absolute(target!)}`;
      },
      nameAt: 3,
      fields: { count: 4, example: '10 5 5060 sip.example.net.' },
    },
    externalDns: 6,
  },
  CAA: {
    example: { name: '@', content: '0 issue "letsencrypt.org"' },
    check: checkCaa,
    caseMatters: true,
    zoneFile: {
      write: asIs,
      fields: { count: 3, example: '0 issue "letsencrypt.org"' },
      read: (rdata) => ({ content: `${rdata[0]!.raw} ${rdata[1]!.raw} ${quoted(rdata[2]!.value)}` }),
    },
    externalDns: 11,
  },
  ALIAS: {
    example: { name: '@', content: 'target.example.net' },
    check: (content) => host(content, true),
    placement: (name) => (name === '@' ? undefined : { message: 'An ALIAS record belongs at the apex ("@"), where a CNAME cannot be; use a CNAME elsewhere', type: 'alias_not_at_apex' }),
    // One target, standing in for the name's addresses: PowerDNS ignores it beside A or AAAA records.
    sharesName: (name, records) => {
      if (count(records, 'ALIAS') > 1) return `"${name}" can have only one ALIAS record`;
      if (count(records, 'ALIAS') > 0 && count(records, 'A', 'AAAA') > 0) return `"${name}" cannot have both an ALIAS and A or AAAA records: the ALIAS answers with its target's addresses`;
      return undefined;
    },
    singleValued: true,
    // zoneFileExport.ts writes it in RFC 3597's generic form (aliasGenericForm.ts), with this form in a comment.
    zoneFile: { write: asHost, nameAt: 0 },
  },
  HTTPS: {
    example: { name: '@', content: '1 . alpn=h2,h3' },
    check: (content) => checkSvcb('HTTPS', content),
    zoneFile: { write: (r) => presentSvcb(r.content), nameAt: 1 },
  },
  SVCB: {
    example: { name: '_svc', content: '1 svc.example.net port=8443' },
    check: (content) => checkSvcb('SVCB', content),
    zoneFile: { write: (r) => presentSvcb(r.content), nameAt: 1 },
  },
  TLSA: {
    example: { name: '_443._tcp.www', content: `3 1 1 ${HEX_EXAMPLE}` },
    check: checkTlsa,
    placement: (name) => {
      const port = /^_(\d{1,5})\._[a-z0-9-]+(\.|$)/.exec(name);
      return port && Number(port[1]) <= 65_535 ? undefined : { message: 'A TLSA name starts with _port._protocol, e.g. "_443._tcp.www" or "_25._tcp.mail"', type: 'tlsa_name_invalid' };
    },
    zoneFile: { write: asIs },
    externalDns: 10,
  },
  SSHFP: { example: { name: 'host', content: `4 2 ${HEX_EXAMPLE}` }, check: checkSshfp, zoneFile: { write: asIs } },
  NAPTR: {
    example: { name: '@', content: '100 10 "U" "E2U+sip" "!^.*$!sip:info@example.com!" .' },
    check: checkNaptr,
    caseMatters: true,
    zoneFile: { write: (r) => presentNaptr(r.content), nameAt: 5 },
    externalDns: 9,
  },
  PTR: { example: { name: '4', content: 'host.example.net' }, check: (content) => host(content, true), zoneFile: { write: asHost, nameAt: 0 }, externalDns: 8 },
  DS: {
    example: { name: 'child', content: `12345 13 2 ${HEX_EXAMPLE}` },
    check: checkDs,
    placement: (name) => {
      if (name === '@') return { message: 'The apex DS records are published at the registry (DNSSEC on the domain); a DS record here belongs at a delegated child, next to its NS records', type: 'ds_at_apex' };
      return name.startsWith('*') ? { message: 'DS records cannot be wildcards: give the delegated child’s name', type: 'ds_name_invalid' } : undefined;
    },
    // A DS sits where a child is delegated, beside NS records.
    sharesName: (name, records) =>
      count(records, 'DS') > 0 && count(records, 'NS') === 0 ? `"${name}" needs NS records for its DS records: a DS record belongs where a child zone is delegated` : undefined,
    zoneFile: { write: asIs },
  },
} satisfies Record<RecordType, RecordTypeSpec>;

// The names are listed below the features (src/dnsRecordTypes.ts: the event payloads and API keys'
// record patterns name them too); `satisfies` holds this table to exactly those names.
export { RECORD_TYPES, type RecordType };
/** The declaration of each type, in the order the API lists them. */
export const RECORD_TYPE_SPECS: Readonly<Record<RecordType, RecordTypeSpec>> = specs;

export const isRecordType = (type: string): type is RecordType => Object.hasOwn(specs, type);
