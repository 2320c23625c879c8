import type { components } from '../../../client/src/index.js';

type RecordType = components['schemas']['DnsRecord']['type'];

/**
 * What each record type's content looks like, shown under a new row's content field. The full rules
 * are the API's (docs at /docs, `createDnsRecord`); these are the shape and one example.
 */
export const RECORD_HINTS: Record<RecordType, string> = {
  A: 'An IPv4 address, e.g. 192.0.2.1',
  AAAA: 'An IPv6 address, e.g. 2001:db8::1',
  CNAME: 'A host name, e.g. target.example.net (not at @: use ALIAS there)',
  ALIAS: 'A host name, answered as its A and AAAA; only at @, e.g. lb.example.net',
  MX: 'The mail host, e.g. mail.example.com (priority in its own column)',
  TXT: 'Plain text, without quotes, e.g. v=spf1 -all',
  NS: 'A name server of a delegated name, e.g. ns1.example.net',
  SRV: 'weight port target, e.g. 5 5060 sip.example.com (name _service._protocol)',
  CAA: 'flags tag "value", e.g. 0 issue "letsencrypt.org"',
  HTTPS: 'SvcPriority TargetName SvcParams, e.g. 1 . alpn=h2,h3 (0 cdn.example.net for alias mode)',
  SVCB: 'SvcPriority TargetName SvcParams, e.g. 1 dns.example.net alpn=dot port=853',
  TLSA: 'usage selector matching-type hex, e.g. 3 1 1 and 64 hex digits (name _443._tcp.www)',
  SSHFP: 'algorithm type fingerprint, e.g. 4 2 and 64 hex digits, as ssh-keygen -r prints it',
  NAPTR: 'order preference "flags" "services" "regexp" replacement, e.g. 100 10 "U" "E2U+sip" "!^.*$!sip:info@example.com!" .',
  PTR: 'A host name, e.g. host.example.net',
  DS: 'key-tag algorithm digest-type digest, e.g. 12345 13 2 and 64 hex digits (a delegated name, beside its NS)',
};

export const RECORD_TYPES = Object.keys(RECORD_HINTS) as RecordType[];

/** The types whose priority is a column of its own (the others hold theirs, if any, in the content). */
export const TAKES_PRIORITY: ReadonlySet<RecordType> = new Set<RecordType>(['MX', 'SRV']);
