import { describe, expect, it } from 'vitest';
import { parseTtl, parseZoneFile, ZoneFileSyntaxError, type ZoneFileProblem } from './zoneFileParser.js';
import { recordsOfEntries } from './zoneFileRecords.js';
import { ALIAS_GENERIC_TYPE, aliasGenericData } from './aliasGenericForm.js';
import { readZoneFile, ZoneFileInvalidError } from './zoneFileImport.js';

const ZONE = 'example.com';
const parse = (text: string) => parseZoneFile(text, { zone: ZONE });
/** The records of a file as the import takes them, without the lines. */
const records = (text: string) => readZoneFile(text, ZONE).records.map(({ line: _line, ...r }) => r);

function problemsOf(text: string): ZoneFileProblem[] {
  try {
    parse(text);
  } catch (err) {
    if (err instanceof ZoneFileSyntaxError) return err.problems;
    throw err;
  }
  throw new Error('expected the file to be refused');
}

function invalidOf(text: string): { loc: string[]; msg: string; type: string }[] {
  try {
    readZoneFile(text, ZONE);
  } catch (err) {
    if (err instanceof ZoneFileInvalidError) return err.detail as { loc: string[]; msg: string; type: string }[];
    throw err;
  }
  throw new Error('expected the file to be refused');
}

describe('zone file parser', () => {
  it('reads $ORIGIN, $TTL and @, with relative and absolute owner names', () => {
    const entries = parse(['$ORIGIN example.com.', '$TTL 600', '@ A 192.0.2.1', 'www A 192.0.2.2', 'api.example.com. A 192.0.2.3', '$ORIGIN dev.example.com.', 'app A 192.0.2.4', '@ A 192.0.2.5'].join('\n'));
    expect(entries.map((e) => [e.line, e.name, e.ttl])).toEqual([
      [3, 'example.com', 600],
      [4, 'www.example.com', 600],
      [5, 'api.example.com', 600],
      [7, 'app.dev.example.com', 600],
      [8, 'dev.example.com', 600],
    ]);
  });

  it('takes names relative to the zone when the file has no $ORIGIN', () => {
    expect(records('$TTL 300\nwww A 192.0.2.1\nWWW.Example.COM. A 192.0.2.2')).toEqual([
      { type: 'A', name: 'www', content: '192.0.2.1', ttl: 300, priority: null },
      { type: 'A', name: 'www', content: '192.0.2.2', ttl: 300, priority: null },
    ]);
  });

  it('refuses names outside the zone, naming the line', () => {
    const problems = problemsOf('$TTL 300\nwww A 192.0.2.1\nwww.example.org. A 192.0.2.2\n$ORIGIN example.net.\n');
    expect(problems).toEqual([
      { line: 3, message: expect.stringContaining('outside the zone example.com') as string, type: 'name_outside_zone' },
      { line: 4, message: expect.stringContaining('outside the zone example.com') as string, type: 'name_outside_zone' },
    ]);
    // A name that merely ends with the zone's letters is not in it.
    expect(problemsOf('$TTL 300\nbadexample.com. A 192.0.2.1')[0]).toMatchObject({ line: 2, type: 'name_outside_zone' });
  });

  it('reads a file whose first $ORIGIN names another zone as a copy of it: its names, and names in the data, move onto ours', () => {
    const text = ['; exported from other.com', '$ORIGIN other.com.', '$TTL 300', '@ A 192.0.2.1', 'www A 192.0.2.2', 'alias CNAME www', 'abs CNAME www.other.com.', 'ext CNAME www.example.net.', '@ MX 10 mx'].join('\n');
    expect(records(text).map((r) => `${r.name} ${r.type} ${r.content}`)).toEqual([
      '@ A 192.0.2.1',
      'www A 192.0.2.2',
      'alias CNAME www.example.com',
      'abs CNAME www.example.com',
      'ext CNAME www.example.net',
      '@ MX mx.example.com',
    ]);
    // Names outside the zone the file speaks for are still refused, our own zone's included.
    expect(problemsOf('$ORIGIN other.com.\n$TTL 300\nwww.example.com. A 192.0.2.1\n$ORIGIN example.com.')).toEqual([
      { line: 3, message: expect.stringContaining('outside the zone other.com') as string, type: 'name_outside_zone' },
      { line: 4, message: expect.stringContaining('outside the zone other.com') as string, type: 'name_outside_zone' },
    ]);
  });

  it('gives a line that starts with white space the previous owner', () => {
    const entries = parse('$TTL 300\nwww A 192.0.2.1\n  A 192.0.2.2\n\tAAAA 2001:db8::1\nmail A 192.0.2.3');
    expect(entries.map((e) => `${e.name} ${e.type}`)).toEqual(['www.example.com A', 'www.example.com A', 'www.example.com AAAA', 'mail.example.com A']);
    expect(problemsOf('$TTL 300\n  A 192.0.2.1')).toEqual([{ line: 2, message: expect.stringContaining('no owner') as string, type: 'owner_missing' }]);
  });

  it('takes TTL and class in either order, either left out; the TTL from the record, $TTL or the last one given', () => {
    const entries = parse(['a 300 IN A 192.0.2.1', 'b IN 400 A 192.0.2.2', 'c A 192.0.2.3', '$TTL 1h30m', 'd IN A 192.0.2.4', 'e 1d A 192.0.2.5', 'f A 192.0.2.6'].join('\n'));
    expect(entries.map((e) => [e.name.split('.')[0], e.ttl])).toEqual([
      ['a', 300],
      ['b', 400],
      ['c', 400],
      ['d', 5_400],
      ['e', 86_400],
      ['f', 5_400],
    ]);
    expect(problemsOf('a A 192.0.2.1')).toEqual([{ line: 1, message: expect.stringContaining('No TTL') as string, type: 'ttl_missing' }]);
    expect(problemsOf('$TTL 300\na CH A 192.0.2.1')).toEqual([{ line: 2, message: 'Class CH: only IN records can be imported', type: 'class_unsupported' }]);
    expect(parseTtl('2w1d')).toBe(1_296_000);
    expect(parseTtl('h')).toBeUndefined();
  });

  it('joins the strings of a TXT record and decodes escapes; a ; inside quotes is text', () => {
    expect(records('$TTL 300\ntxt TXT "v=spf1 " "include:_spf.example.net" "-all"\nq TXT "say \\"hi\\"; \\\\ \\065\\066C" plain\\ word')).toEqual([
      { type: 'TXT', name: 'txt', content: 'v=spf1 include:_spf.example.net-all', ttl: 300, priority: null },
      { type: 'TXT', name: 'q', content: 'say "hi"; \\ ABCplain word', ttl: 300, priority: null },
    ]);
  });

  it('reads an entry spread over lines in parentheses, with comments inside and after them', () => {
    const text = [
      '$TTL 300',
      '@ IN SOA ns1.example.net. hostmaster.example.com. ( ; opens here',
      '    2024010101 ; serial',
      '    7200       ; refresh ( not a parenthesis )',
      '    3600 1209600',
      '    3600 )     ; minimum',
      'dkim._domainkey TXT ( "v=DKIM1; k=rsa; "',
      '                      "p=MIGf" ) ; key',
      'after A 192.0.2.1',
    ].join('\n');
    const entries = parse(text);
    expect(entries.map((e) => [e.line, e.type, e.rdata.map((t) => t.value).join(' ')])).toEqual([
      [2, 'SOA', 'ns1.example.net. hostmaster.example.com. 2024010101 7200 3600 1209600 3600'],
      [7, 'TXT', 'v=DKIM1; k=rsa;  p=MIGf'],
      [9, 'A', '192.0.2.1'],
    ]);
    expect(records(text).find((r) => r.type === 'TXT')?.content).toBe('v=DKIM1; k=rsa; p=MIGf');
  });

  it('makes names in the data absolute: relative to the origin, @, or as written', () => {
    const text = ['$TTL 300', '@ MX 10 mx', '@ MX 20 mx.example.net.', 'alias CNAME @', 'sub NS ns1.sub', '_sip._tcp SRV 0 5 5060 .'].join('\n');
    expect(records(text)).toEqual([
      { type: 'MX', name: '@', content: 'mx.example.com', ttl: 300, priority: 10 },
      { type: 'MX', name: '@', content: 'mx.example.net', ttl: 300, priority: 20 },
      { type: 'CNAME', name: 'alias', content: 'example.com', ttl: 300, priority: null },
      { type: 'NS', name: 'sub', content: 'ns1.sub.example.com', ttl: 300, priority: null },
      { type: 'SRV', name: '_sip._tcp', content: '5 5060 .', ttl: 300, priority: 0 },
    ]);
  });

  it('reports what it does not import: the SOA, the apex NS, types not served, DNSSEC records, repeats', () => {
    const text = [
      '$TTL 300',
      '@ SOA ns1.example.net. hostmaster.example.com. 1 7200 3600 1209600 3600',
      '@ NS ns1.example.net.',
      'sub NS ns1.example.net.',
      'host HINFO "pc" "linux"',
      '@ DNSKEY 257 3 13 AAAA',
      'www A 192.0.2.1',
      'www 300 IN A 192.0.2.1',
      'x TYPE65534 \\# 0',
    ].join('\n');
    const { records: taken, skipped } = readZoneFile(text, ZONE);
    expect(taken.map((r) => `${r.line} ${r.name} ${r.type}`)).toEqual(['4 sub NS', '7 www A']);
    expect(skipped.map((s) => [s.line, s.type, s.name])).toEqual([
      [2, 'SOA', '@'],
      [3, 'NS', '@'],
      [5, 'HINFO', 'host'],
      [6, 'DNSKEY', '@'],
      [8, 'A', 'www'],
      [9, 'TYPE65534', 'x'],
    ]);
    expect(skipped.find((s) => s.line === 8)?.reason).toBe('The same record as on line 7');
    expect(skipped.find((s) => s.line === 5)?.reason).toContain('not served');
  });

  it('reports every syntax error with its line', () => {
    const text = ['$TTL 300', 'a A 192.0.2.1 )', 'b TXT "never closed', '$INCLUDE other.zone', 'd 300 IN', 'e TXT "bad \\999"', 'f A 192.0.2.2', 'g (A 192.0.2.3', 'h A 192.0.2.4'].join('\n');
    expect(problemsOf(text).map((p) => [p.line, p.type])).toEqual([
      [2, 'parenthesis_unbalanced'],
      [3, 'quote_unterminated'],
      [4, 'directive_unsupported'],
      [5, 'type_missing'],
      [6, 'escape_invalid'],
      // Opened here, never closed: the line it was opened on is the one to look at.
      [8, 'parenthesis_unbalanced'],
    ]);
  });

  it('refuses records the type rules refuse, naming the line and what is wrong', () => {
    const detail = invalidOf(['$TTL 300', 'ok A 192.0.2.1', 'bad A 192.0.2.300', 'mx MX ten mail.example.net.', 'short SRV 1 2 host.example.net.', '@ CNAME www', 'fast 5 A 192.0.2.1'].join('\n'));
    expect(detail.map((d) => [d.loc.join('.'), d.type])).toEqual([
      ['body.line.3', 'ipv4_invalid'],
      ['body.line.4', 'record_invalid'],
      ['body.line.5', 'record_invalid'],
      ['body.line.6', 'cname_at_apex'],
      ['body.line.7', 'ttl_invalid'],
    ]);
    expect(detail[0]!.msg).toBe('Line 3: A bad: Must be an IPv4 address, e.g. 192.0.2.1');
    expect(detail[2]!.msg).toContain('SRV takes 4 fields');
  });

  it('stops at the record limit', () => {
    const text = `$TTL 300\n${Array.from({ length: 5 }, (_, i) => `h${i} A 192.0.2.${i + 1}`).join('\n')}`;
    expect(() => parseZoneFile(text, { zone: ZONE, maxEntries: 4 })).toThrow(/More than 4 records/);
    expect(recordsOfEntries(parseZoneFile(text, { zone: ZONE, maxEntries: 5 }), ZONE).records).toHaveLength(5);
  });

  it('reads an ALIAS in RFC 3597 generic form (as exports write it, for BIND), and refuses data that is not a name', () => {
    const written = `@ 300 IN ${ALIAS_GENERIC_TYPE} ${aliasGenericData('www.example.net.')} ; ALIAS www.example.net.`;
    expect(written).toBe('@ 300 IN TYPE65401 \\# 17 03777777076578616d706c65036e657400 ; ALIAS www.example.net.');
    expect(records(`$TTL 300\n${written}`)).toEqual([{ type: 'ALIAS', name: '@', content: 'www.example.net', ttl: 300, priority: null }]);
    expect(records(`$TTL 300\n${written}`)).toEqual(records('$TTL 300\n@ 300 IN ALIAS www.example.net.'));
    expect(invalidOf('@ 300 IN TYPE65401 \\# 3 03777777').map((d) => [d.loc.join('.'), d.type])).toEqual([['body.line.1', 'record_invalid']]);
  });

  it('reads CRLF files and a file without a final newline', () => {
    expect(records('$TTL 300\r\nwww A 192.0.2.1\r\n  A 192.0.2.2')).toHaveLength(2);
  });
});
