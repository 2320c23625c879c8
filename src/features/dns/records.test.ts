import { describe, expect, it } from 'vitest';
import { checkRecord, presentationContent, txtStrings, type RecordFields } from './records.js';

const ZONE = 'example.com';
const record = (fields: Partial<RecordFields> & Pick<RecordFields, 'type' | 'content'>): RecordFields => ({
  name: 'www',
  ttl: 3600,
  priority: null,
  ...fields,
});
const normalised = (fields: Parameters<typeof record>[0]) => {
  const result = checkRecord(record(fields), ZONE);
  if (!result.ok) throw new Error(`rejected: ${JSON.stringify(result.issues)}`);
  return result.value;
};
const problems = (fields: Parameters<typeof record>[0]) => {
  const result = checkRecord(record(fields), ZONE);
  return result.ok ? [] : result.issues.map((i) => `${i.field}:${i.type}`);
};

describe('checkRecord, per type', () => {
  it.each([
    ['A', '192.0.2.1', '192.0.2.1'],
    ['AAAA', '2001:DB8::1', '2001:db8::1'],
    ['AAAA', '::ffff:192.0.2.1', '::ffff:192.0.2.1'],
    ['CNAME', 'Target.Example.NET.', 'target.example.net'],
    ['CNAME', 's1._domainkey.mailer.example', 's1._domainkey.mailer.example'],
    ['NS', 'ns1.example.net', 'ns1.example.net'],
    ['TXT', 'v=spf1 include:_spf.example.net -all', 'v=spf1 include:_spf.example.net -all'],
    ['TXT', 'say "hi" \\o/', 'say "hi" \\o/'],
    ['CAA', '0 issue "letsencrypt.org"', '0 issue "letsencrypt.org"'],
    ['CAA', '0 ISSUEWILD letsencrypt.org; validationmethods=dns-01', '0 issuewild "letsencrypt.org; validationmethods=dns-01"'],
    ['CAA', '0 issue ";"', '0 issue ";"'],
    ['CAA', '128 iodef "mailto:security@example.com"', '128 iodef "mailto:security@example.com"'],
    ['CAA', '0 iodef https://example.com/caa', '0 iodef "https://example.com/caa"'],
  ] as const)('accepts %s %s', (type, content, stored) => {
    expect(normalised({ type, content }).content).toBe(stored);
  });

  it('accepts MX and SRV with a priority, and unusual but valid names', () => {
    expect(normalised({ type: 'MX', name: '@', content: 'mail.example.com.', priority: 10 })).toMatchObject({ content: 'mail.example.com', priority: 10 });
    expect(normalised({ type: 'SRV', name: '_sip._tcp', content: '5  5060  sip.example.com.', priority: 0 }).content).toBe('5 5060 sip.example.com');
    expect(normalised({ type: 'SRV', name: '_sip._udp.eu', content: '0 0 .', priority: 0 }).content).toBe('0 0 .');
    expect(normalised({ type: 'A', name: '*.Dev', content: '192.0.2.1' }).name).toBe('*.dev');
    expect(normalised({ type: 'TXT', name: '_dmarc', content: 'v=DMARC1; p=none' }).name).toBe('_dmarc');
  });

  it('takes an empty (or blank) name as the apex, with the apex’s rules', () => {
    expect(normalised({ type: 'TXT', name: '', content: 'apex' }).name).toBe('@');
    expect(normalised({ type: 'A', name: '  ', content: '192.0.2.1' }).name).toBe('@');
    expect(problems({ type: 'CNAME', name: '', content: 'target.example.net' })).toEqual(['name:cname_at_apex']);
  });

  it.each([
    ['A', '192.0.2.256', 'content:ipv4_invalid'],
    ['A', '2001:db8::1', 'content:ipv4_invalid'],
    ['A', 'www.example.com', 'content:ipv4_invalid'],
    ['AAAA', '192.0.2.1', 'content:ipv6_invalid'],
    ['AAAA', 'fe80::1%eth0', 'content:ipv6_invalid'],
    ['AAAA', '2001:db8::g', 'content:ipv6_invalid'],
    ['CNAME', '192.0.2.1', 'content:hostname_invalid'],
    ['CNAME', 'localhost', 'content:hostname_invalid'],
    ['CNAME', 'bad..example.com', 'content:hostname_invalid'],
    ['NS', 'ns_1.example.net', 'content:hostname_invalid'],
    ['NS', '-ns.example.net', 'content:hostname_invalid'],
    ['TXT', 'tab\there', 'content:txt_invalid'],
    ['TXT', 'caf\u00e9', 'content:txt_invalid'],
    ['TXT', 'x'.repeat(2049), 'content:txt_too_long'],
    ['CAA', 'issue letsencrypt.org', 'content:caa_invalid'],
    ['CAA', '256 issue "letsencrypt.org"', 'content:caa_invalid'],
    ['CAA', '0 tbs "letsencrypt.org"', 'content:caa_invalid'],
    ['CAA', '0 issue "not a domain"', 'content:caa_invalid'],
    ['CAA', '0 iodef "ftp://example.com"', 'content:caa_invalid'],
    ['CAA', '0 issue "a"b"', 'content:caa_invalid'],
  ] as const)('refuses %s %j', (type, content, problem) => {
    expect(problems({ type, content, name: type === 'NS' ? 'sub' : 'www' })).toEqual([problem]);
  });

  it('requires a priority for MX and SRV and refuses one elsewhere', () => {
    expect(problems({ type: 'MX', content: 'mail.example.com' })).toEqual(['priority:priority_required']);
    expect(problems({ type: 'SRV', name: '_sip._tcp', content: '5 5060 sip.example.com' })).toEqual(['priority:priority_required']);
    expect(problems({ type: 'A', content: '192.0.2.1', priority: 10 })).toEqual(['priority:priority_not_allowed']);
    expect(problems({ type: 'MX', content: 'not a host', priority: 10 })).toEqual(['content:hostname_invalid']);
  });

  it('checks SRV content and names', () => {
    expect(problems({ type: 'SRV', name: '_sip._tcp', content: '5 sip.example.com', priority: 1 })).toEqual(['content:srv_invalid']);
    expect(problems({ type: 'SRV', name: '_sip._tcp', content: '5 70000 sip.example.com', priority: 1 })).toEqual(['content:srv_invalid']);
    expect(problems({ type: 'SRV', name: 'sip', content: '5 5060 sip.example.com', priority: 1 })).toEqual(['name:srv_name_invalid']);
  });

  it('checks names: relative, valid labels, CNAME and NS not at the apex', () => {
    expect(problems({ type: 'A', name: 'www.example.com', content: '192.0.2.1' })).toEqual(['name:record_name_invalid']);
    expect(problems({ type: 'A', name: 'www.', content: '192.0.2.1' })).toEqual(['name:record_name_invalid']);
    expect(problems({ type: 'A', name: 'a b', content: '192.0.2.1' })).toEqual(['name:record_name_invalid']);
    expect(problems({ type: 'A', name: 'www.*', content: '192.0.2.1' })).toEqual(['name:record_name_invalid']);
    expect(problems({ type: 'A', name: `${'a'.repeat(64)}`, content: '192.0.2.1' })).toEqual(['name:record_name_invalid']);
    expect(problems({ type: 'CNAME', name: '@', content: 'other.example.net' })).toEqual(['name:cname_at_apex']);
    expect(problems({ type: 'NS', name: '@', content: 'ns1.example.net' })).toEqual(['name:ns_name_invalid']);
    expect(problems({ type: 'NS', name: '*', content: 'ns1.example.net' })).toEqual(['name:ns_name_invalid']);
  });

  it('checks the TTL and reports every problem at once', () => {
    expect(problems({ type: 'A', content: '192.0.2.1', ttl: 59 })).toEqual(['ttl:ttl_invalid']);
    expect(problems({ type: 'A', content: '192.0.2.1', ttl: 86_401 })).toEqual(['ttl:ttl_invalid']);
    expect(problems({ type: 'MX', name: 'x y', content: '1.2.3.4', ttl: 1 })).toEqual([
      'name:record_name_invalid',
      'ttl:ttl_invalid',
      'priority:priority_required',
      'content:hostname_invalid',
    ]);
  });
});

describe('presentation format (what PowerDNS is sent)', () => {
  it('writes host names absolute and priorities in front', () => {
    expect(presentationContent({ type: 'CNAME', content: 'target.example.net', priority: null })).toBe('target.example.net.');
    expect(presentationContent({ type: 'MX', content: 'mail.example.com', priority: 10 })).toBe('10 mail.example.com.');
    expect(presentationContent({ type: 'SRV', content: '5 5060 sip.example.com', priority: 20 })).toBe('20 5 5060 sip.example.com.');
    expect(presentationContent({ type: 'SRV', content: '0 0 .', priority: 0 })).toBe('0 0 0 .');
    expect(presentationContent({ type: 'CAA', content: '0 issue "letsencrypt.org"', priority: null })).toBe('0 issue "letsencrypt.org"');
  });

  it('quotes TXT text and splits it into strings of at most 255 characters', () => {
    expect(txtStrings('v=spf1 -all')).toBe('"v=spf1 -all"');
    expect(txtStrings('say "hi" \\o/')).toBe('"say \\"hi\\" \\\\o/"');
    const long = 'a'.repeat(255) + 'b'.repeat(255) + 'c';
    expect(txtStrings(long)).toBe(`"${'a'.repeat(255)}" "${'b'.repeat(255)}" "c"`);
  });
});

describe('CAA iodef values of every size', () => {
  // Large values near the content limit, valid and not: the check must decide each correctly.
  const long = 'a'.repeat(2_000);
  it.each([
    [`0 iodef "mailto:${long}@example.com"`, true],
    [`0 iodef "https://example.com/${long}"`, true],
    [`0 iodef "mailto:${long}"`, false],
    [`0 iodef "mailto:${long}@"`, false],
    [`0 iodef "mailto:@${long}"`, false],
    [`0 iodef "ftp://${long}"`, false],
    [`0 iodef "https://"`, false],
    [`0 iodef "https://example.com/${long}\t${long}"`, false],
    [`0 iodef "mailto:${'@'.repeat(1_000)} x"`, false],
    [`0 iodef "mailto:${'a@'.repeat(1_000)} "`, false],
    [`0 iodef "mailto:${'a@'.repeat(1_000)}b"`, true],
  ])('%#: %s', (content, accepted) => {
    expect(problems({ type: 'CAA', name: '@', content })).toEqual(accepted ? [] : ['content:caa_invalid']);
  });
});
