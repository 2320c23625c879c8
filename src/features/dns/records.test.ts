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
    // Stored and sent in presentation form, where a backslash escapes what follows: the last one would escape the closing quote.
    ['CAA', '0 iodef "mailto:security@example.com\\"', 'content:caa_invalid'],
    ['CAA', '0 iodef mailto:security@example.com\\', 'content:caa_invalid'],
    ['CAA', '0 issue "letsencrypt.org; accounturi=x\\"', 'content:caa_invalid'],
    ['CAA', '0 iodef "https://example.com/a\\b"', 'content:caa_invalid'],
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

const SHA256 = '0d6fce3320b2e9a2a6c33c7db2e9fe8e4c12a7d16e7e2be1c4fe3c37c5e8e1b2';
const SHA1 = '0123456789abcdef0123456789abcdef01234567';
const SHA384 = 'ab'.repeat(48);
const SHA512 = 'cd'.repeat(64);
const ECH = 'AEn+DQBFKwAgACABWIHUGj4u+PIggYXcR5JF0gYk3dCRioBW8uJq9H4mKAAIAAEAAQABAANAEnB1YmxpYy50bHMtZWNoLmRldgAA';
type Accepted = [RecordFields['type'], string, string, string];

describe('record types a host serves: accepted and stored in the form PowerDNS writes back', () => {
  // [type, name, content as given, content as stored]
  const accepted: Accepted[] = [
    ['ALIAS', '@', 'LB.Example.NET.', 'lb.example.net'],
    ['ALIAS', '', 'myapp.herokudns.com', 'myapp.herokudns.com'],
    ['PTR', '10', 'host.example.net.', 'host.example.net'],
    ['PTR', '_printer._tcp', 'office._printer._tcp.example.com', 'office._printer._tcp.example.com'],
    ['HTTPS', '@', '1 . alpn=h2,h3', '1 . alpn=h2,h3'],
    ['HTTPS', 'www', '0 CDN.example.net.', '0 cdn.example.net'],
    ['HTTPS', '@', '0 .', '0 .'],
    ['HTTPS', '@', `01 svc.example.net ipv6hint=2001:0DB8:0:0::1 port=0443 ALPN="h3,h2" ech=${ECH} no-default-alpn mandatory=port,alpn ipv4hint=192.0.2.1,192.0.2.2`,
      `1 svc.example.net mandatory=alpn,port alpn=h3,h2 no-default-alpn port=443 ipv4hint=192.0.2.1,192.0.2.2 ech="${ECH}" ipv6hint=2001:db8::1`],
    ['SVCB', '_dns', '1 dns.example.net. alpn=dot port=853', '1 dns.example.net alpn=dot port=853'],
    ['SVCB', '_8443._https.api', '2 . alpn=http/1.1 ech="AEn+DQ=="', '2 . alpn=http/1.1 ech="AEn+DQ=="'],
    ['TLSA', '_443._tcp.www', `3 1 1 ${SHA256.toUpperCase()}`, `3 1 1 ${SHA256}`],
    ['TLSA', '_25._tcp.mail', `2 0 2 ${SHA512.slice(0, 64)} ${SHA512.slice(64)}`, `2 0 2 ${SHA512}`],
    ['TLSA', '_443._tcp', '0 0 0 3082010a0282', '0 0 0 3082010a0282'],
    ['SSHFP', 'host', `4 2 ${SHA256}`, `4 2 ${SHA256}`],
    ['SSHFP', '@', `1 1 ${SHA1.toUpperCase()}`, `1 1 ${SHA1}`],
    ['SSHFP', 'host', `6 2 ${SHA256}`, `6 2 ${SHA256}`],
    ['NAPTR', '@', '100 10 "u" "E2U+sip" "!^.*$!sip:info@example.com!" .', '100 10 "U" "E2U+sip" "!^.*$!sip:info@example.com!" .'],
    ['NAPTR', '@', '100 20 S SIP+D2U "" _sip._udp.Example.com.', '100 20 "S" "SIP+D2U" "" _sip._udp.example.com'],
    ['NAPTR', '4.3.2.1', '10 100 "U" "E2U+sip" "!^\\\\+44111555(.+)$!sip:7\\\\1@sip.example.com!" .', '10 100 "U" "E2U+sip" "!^\\\\+44111555(.+)$!sip:7\\\\1@sip.example.com!" .'],
    ['NAPTR', 'x', '0 0 "" "" "/a\\\\/b/c/i" .', '0 0 "" "" "/a\\\\/b/c/i" .'],
    ['DS', 'child', `12345 13 2 ${SHA256.toUpperCase()}`, `12345 13 2 ${SHA256}`],
    ['DS', 'eu.child', `0 8 4 ${SHA384}`, `0 8 4 ${SHA384}`],
  ];
  it.each(accepted)('accepts %s at %j: %s', (type, name, content, stored) => {
    expect(normalised({ type, name, content }).content).toBe(stored);
  });

  it.each(accepted)('round-trips %s %j through the form PowerDNS is sent', (type, name, content, stored) => {
    const sent = presentationContent({ type, content: stored, priority: null });
    expect(normalised({ type, name, content: sent }).content).toBe(stored);
  });

  it('writes host names absolute in the form PowerDNS is sent', () => {
    expect(presentationContent({ type: 'ALIAS', content: 'lb.example.net', priority: null })).toBe('lb.example.net.');
    expect(presentationContent({ type: 'PTR', content: 'host.example.net', priority: null })).toBe('host.example.net.');
    expect(presentationContent({ type: 'HTTPS', content: '1 svc.example.net alpn=h2', priority: null })).toBe('1 svc.example.net. alpn=h2');
    expect(presentationContent({ type: 'SVCB', content: '1 . port=853', priority: null })).toBe('1 . port=853');
    expect(presentationContent({ type: 'NAPTR', content: '100 20 "S" "SIP+D2U" "" _sip._udp.example.com', priority: null })).toBe(
      '100 20 "S" "SIP+D2U" "" _sip._udp.example.com.',
    );
    expect(presentationContent({ type: 'NAPTR', content: '100 10 "U" "E2U+sip" "!^.*$!sip:a b@example.com!" .', priority: null })).toBe(
      '100 10 "U" "E2U+sip" "!^.*$!sip:a b@example.com!" .',
    );
  });
});

/** The refusal's field, type, and whether its message names what it is about. */
const refusal = (fields: Parameters<typeof record>[0]) => {
  const result = checkRecord(record(fields), ZONE);
  if (result.ok) throw new Error('accepted');
  return result.issues.map((i) => ({ at: `${i.field}:${i.type}`, message: i.message }));
};

describe('record types a host serves: refused, naming the field and what it expects', () => {
  // [type, name, content, field:type, words the message must contain]
  it.each([
    ['ALIAS', '@', '192.0.2.1', 'content:hostname_invalid', /host name/],
    ['ALIAS', 'www', 'lb.example.net', 'name:alias_not_at_apex', /apex/],
    ['PTR', '10', 'not a host', 'content:hostname_invalid', /host name/],
    ['HTTPS', '@', 'alpn=h2', 'content:https_invalid', /SvcPriority TargetName SvcParams/],
    ['HTTPS', '@', '70000 . alpn=h2', 'content:https_invalid', /SvcPriority must be 0–65535/],
    ['HTTPS', '@', '1 not_a..host alpn=h2', 'content:https_invalid', /TargetName/],
    ['HTTPS', '@', '0 cdn.example.net alpn=h2', 'content:https_invalid', /alias mode.*takes none/],
    ['HTTPS', '@', '1 . alpn=h2 alpn=h3', 'content:https_invalid', /alpn is given twice/],
    ['HTTPS', '@', '1 . dohpath=/q{?dns}', 'content:https_invalid', /"dohpath" is not supported/],
    ['HTTPS', '@', '1 . port=65536', 'content:https_invalid', /port must be 0–65535/],
    ['HTTPS', '@', '1 . port', 'content:https_invalid', /port must be/],
    ['HTTPS', '@', '1 . alpn=h2\\,h3', 'content:https_invalid', /alpn must be protocol ids/],
    ['HTTPS', '@', '1 . alpn=', 'content:https_invalid', /alpn must be/],
    ['HTTPS', '@', '1 . ipv4hint=2001:db8::1', 'content:https_invalid', /ipv4hint must be IPv4/],
    ['HTTPS', '@', '1 . ipv6hint=192.0.2.1', 'content:https_invalid', /ipv6hint must be IPv6/],
    ['HTTPS', '@', '1 . ipv6hint=::ffff:192.0.2.1', 'content:https_invalid', /IPv4 addresses go in ipv4hint/],
    ['HTTPS', '@', '1 . ech=not*base64', 'content:https_invalid', /ech must be .* base64/],
    ['HTTPS', '@', '1 . no-default-alpn', 'content:https_invalid', /no-default-alpn needs alpn/],
    ['HTTPS', '@', '1 . no-default-alpn=h2 alpn=h2', 'content:https_invalid', /no-default-alpn takes no value/],
    ['HTTPS', '@', '1 . mandatory=port', 'content:https_invalid', /mandatory names port, which the record does not give/],
    ['HTTPS', '@', '1 . mandatory=mandatory', 'content:https_invalid', /mandatory must list the other keys/],
    ['HTTPS', '@', '1 . mandatory=alpn,alpn alpn=h2', 'content:https_invalid', /mandatory lists a key twice/],
    ['SVCB', '_dns', '1 dns.example.net alpn="h2', 'content:svcb_invalid', /SvcParams must be key=value/],
    ['TLSA', '_443._tcp', `3 1 1`, 'content:tlsa_invalid', /usage selector matching-type data/],
    ['TLSA', '_443._tcp', `4 1 1 ${SHA256}`, 'content:tlsa_invalid', /Certificate usage must be 0 \(PKIX-TA\)/],
    ['TLSA', '_443._tcp', `3 2 1 ${SHA256}`, 'content:tlsa_invalid', /Selector must be 0/],
    ['TLSA', '_443._tcp', `3 1 3 ${SHA256}`, 'content:tlsa_invalid', /Matching type must be 0/],
    ['TLSA', '_443._tcp', `3 1 1 ${SHA256.slice(2)}`, 'content:tlsa_invalid', /certificate association data must be 64 hex digits/],
    ['TLSA', '_443._tcp', `3 1 2 ${SHA256}`, 'content:tlsa_invalid', /must be 128 hex digits/],
    ['TLSA', '_443._tcp', `3 1 1 ${SHA256.slice(1)}g`, 'content:tlsa_invalid', /hexadecimal digits/],
    ['TLSA', 'www', `3 1 1 ${SHA256}`, 'name:tlsa_name_invalid', /_port._protocol/],
    ['TLSA', '_99999._tcp', `3 1 1 ${SHA256}`, 'name:tlsa_name_invalid', /_port._protocol/],
    ['SSHFP', 'host', `5 2 ${SHA256}`, 'content:sshfp_invalid', /Algorithm must be 1 \(RSA\)/],
    ['SSHFP', 'host', `4 3 ${SHA256}`, 'content:sshfp_invalid', /Fingerprint type must be 1 \(SHA-1\) or 2 \(SHA-256\)/],
    ['SSHFP', 'host', `4 2 ${SHA1}`, 'content:sshfp_invalid', /fingerprint must be 64 hex digits/],
    ['SSHFP', 'host', `4 1 ${SHA256}`, 'content:sshfp_invalid', /fingerprint must be 40 hex digits/],
    ['SSHFP', 'host', SHA256, 'content:sshfp_invalid', /algorithm fingerprint-type fingerprint/],
    ['NAPTR', '@', '100 10 "U" "E2U+sip"', 'content:naptr_invalid', /order preference flags services regexp replacement/],
    ['NAPTR', '@', '100000 10 "U" "E2U+sip" "!^.*$!sip:a@example.com!" .', 'content:naptr_invalid', /Order must be 0–65535/],
    ['NAPTR', '@', '100 x "U" "E2U+sip" "!^.*$!sip:a@example.com!" .', 'content:naptr_invalid', /Preference must be 0–65535/],
    ['NAPTR', '@', '100 10 "US" "E2U+sip" "!^.*$!sip:a@example.com!" .', 'content:naptr_invalid', /Flags must be .* at most one of S, A, U and P/],
    ['NAPTR', '@', '100 10 "U" "E2U sip" "!^.*$!sip:a@example.com!" .', 'content:naptr_invalid', /Services must be/],
    ['NAPTR', '@', '100 10 "U" "E2U+sip" "^.*$" .', 'content:naptr_invalid', /Regexp must be empty or "!pattern!replacement!"/],
    ['NAPTR', '@', '100 10 "U" "E2U+sip" "!^.*$!sip:a@example.com!" sip.example.com', 'content:naptr_invalid', /not both/],
    ['NAPTR', '@', '100 10 "S" "SIP+D2U" "" .', 'content:naptr_invalid', /both are empty/],
    ['NAPTR', '@', '100 10 "S" "SIP+D2U" "" not_a..host', 'content:naptr_invalid', /Replacement must be a fully qualified host name/],
    ['NAPTR', '@', '100 10 "S" "SIP+D2U" "" _sip._udp.example.com extra', 'content:naptr_invalid', /order preference flags/],
    ['DS', '@', `12345 13 2 ${SHA256}`, 'name:ds_at_apex', /delegated child/],
    ['DS', '*', `12345 13 2 ${SHA256}`, 'name:ds_name_invalid', /wildcards/],
    ['DS', 'child', `70000 13 2 ${SHA256}`, 'content:ds_invalid', /Key tag must be 0–65535/],
    ['DS', 'child', `12345 1 2 ${SHA256}`, 'content:ds_invalid', /Algorithm must be one of 5, 7, 8, 10, 13, 14, 15, 16/],
    ['DS', 'child', `12345 13 1 ${SHA1}`, 'content:ds_invalid', /Digest type must be 2 \(SHA-256\) or 4 \(SHA-384\)/],
    ['DS', 'child', `12345 13 4 ${SHA256}`, 'content:ds_invalid', /digest must be 96 hex digits/],
    ['DS', 'child', '12345 13 2', 'content:ds_invalid', /key-tag algorithm digest-type digest/],
  ] as const)('refuses %s at %j: %s', (type, name, content, at, words) => {
    const [issue, ...more] = refusal({ type, name, content });
    expect(more).toEqual([]);
    expect(issue!.at).toBe(at);
    expect(issue!.message).toMatch(words);
  });

  it('keeps the priority for MX and SRV: an HTTPS record carries its SvcPriority in its content', () => {
    expect(refusal({ type: 'HTTPS', name: '@', content: '1 . alpn=h2', priority: 1 })).toEqual([
      { at: 'priority:priority_not_allowed', message: expect.stringContaining('SvcPriority is the first field of its content') },
    ]);
  });

  it('keeps a CNAME off the apex and points to ALIAS instead', () => {
    expect(refusal({ type: 'CNAME', name: '@', content: 'lb.example.net' })[0]!.message).toContain('ALIAS');
  });
});
