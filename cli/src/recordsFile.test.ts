import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { recordsFromYaml, zoneFileOf, type RecordEntry } from './recordsFile.js';
import { readZoneFile } from '../../src/features/dns/zoneFileImport.js';
import { RECORD_TYPES } from '../../src/features/dns/recordTypes.js';

const HEX = 'a'.repeat(64);
const LONG_TEXT = `v=DKIM1; k=rsa; p=${'M'.repeat(300)} "quoted" and \\ a backslash`;

/** Every record type, with its content as the API shows it (`records list`). */
const RECORDS: RecordEntry[] = [
  { name: 'www', type: 'A', content: '192.0.2.10', ttl: 300, priority: null },
  { name: '@', type: 'AAAA', content: '2001:db8::1', ttl: 3600, priority: null },
  { name: 'api', type: 'CNAME', content: 'lb.example.net', ttl: 3600, priority: null },
  { name: '@', type: 'MX', content: 'mail.example.net', ttl: 3600, priority: 10 },
  { name: '@', type: 'TXT', content: LONG_TEXT, ttl: 3600, priority: null },
  { name: '_sip._tcp', type: 'SRV', content: '5 5060 sip.example.net', ttl: 3600, priority: 20 },
  { name: '@', type: 'CAA', content: '0 issue "letsencrypt.org"', ttl: 3600, priority: null },
  { name: '@', type: 'ALIAS', content: 'target.example.net', ttl: 3600, priority: null },
  { name: '@', type: 'HTTPS', content: '1 . alpn=h2,h3', ttl: 3600, priority: null },
  { name: '_svc', type: 'SVCB', content: '1 svc.example.net port=8443', ttl: 3600, priority: null },
  { name: '_443._tcp.www', type: 'TLSA', content: `3 1 1 ${HEX}`, ttl: 3600, priority: null },
  { name: 'host', type: 'SSHFP', content: `4 2 ${HEX}`, ttl: 3600, priority: null },
  { name: '@', type: 'NAPTR', content: '100 10 "U" "E2U+sip" "!^.*$!sip:info@example.com!" .', ttl: 3600, priority: null },
  { name: '4', type: 'PTR', content: 'host.example.net', ttl: 3600, priority: null },
  { name: 'child', type: 'NS', content: 'ns1.example.net', ttl: 3600, priority: null },
  { name: 'child', type: 'DS', content: `12345 13 2 ${HEX}`, ttl: 3600, priority: null },
];

describe('records files', () => {
  it('turn YAML into a zone file the import reads back as the same records, every type', () => {
    expect(RECORDS.map((r) => r.type).sort(), 'a record of each type the API takes (src/features/dns/recordTypes.ts)').toEqual([...RECORD_TYPES].sort());
    const file = zoneFileOf('example.com', RECORDS);
    const { records, skipped } = readZoneFile(file.zoneFile, 'example.com');
    expect(skipped).toEqual([]);
    expect(records.map(({ name, type, content, ttl, priority }) => ({ name, type, content, ttl, priority }))).toEqual(RECORDS);
  });

  it('name a zone file line by the YAML entry it came from', () => {
    const file = zoneFileOf('example.com', RECORDS);
    expect(file.where(3)).toBe('records[0] (www A)');
    expect(file.where(5)).toBe('records[2] (api CNAME)');
    expect(file.where(1)).toBe('line 1');
  });

  it('read a list or {records: [...]}, defaulting the name to the apex, and say which entry is wrong', () => {
    expect(recordsFromYaml('- { type: a, content: 192.0.2.1 }', 'r.yaml', parse)).toEqual([{ name: '@', type: 'A', content: '192.0.2.1', ttl: undefined, priority: undefined }]);
    expect(recordsFromYaml('records:\n  - { name: x, type: TXT, content: 42 }', 'r.yaml', parse)[0]).toMatchObject({ content: '42' });
    expect(() => recordsFromYaml('records:\n  - { name: x, type: A }', 'r.yaml', parse)).toThrow('r.yaml: records[0] needs content');
    expect(() => recordsFromYaml('records:\n  - { type: A, content: x, ttl: 1.5 }', 'r.yaml', parse)).toThrow('records[0] has a ttl that is not a whole number');
    expect(() => recordsFromYaml('name: x', 'r.yaml', parse)).toThrow('give a list of records');
  });
});
