import { describe, expect, it } from 'vitest';
import { parseRecordPattern, patternsNameDomain, recordMatches } from './recordPatterns.js';

const TYPES = ['A', 'TXT', 'CNAME'];
const canonical = (input: string) => {
  const parsed = parseRecordPattern(input, TYPES);
  return parsed.ok ? parsed.value : `refused: ${parsed.reason}`;
};

describe('allowed_records patterns', () => {
  it('are kept canonical: lower-case punycode name without the trailing dot, upper-case type', () => {
    expect(canonical(' _ACME-Challenge.Example.COM.:txt ')).toBe('_acme-challenge.example.com:TXT');
    expect(canonical('_acme-challenge.*.bücher.de:TXT')).toBe('_acme-challenge.*.xn--bcher-kva.de:TXT');
    expect(canonical('*.example.com:A')).toBe('*.example.com:A');
  });

  it('are refused with the reason', () => {
    expect(canonical('_acme-challenge.example.com')).toMatch(/^refused: Must be <name>:<TYPE>/);
    expect(canonical('_acme-challenge.example.com:TXTT')).toMatch(/"TXTT" is not a record type/);
    expect(canonical('_acme-challenge.*.*.example.com:TXT')).toMatch(/Only one label may be "\*"/);
    expect(canonical('_acme-challenge.example.*:TXT')).toMatch(/The last label cannot be "\*"/);
    expect(canonical('localhost:TXT')).toMatch(/fully qualified/);
    expect(canonical('-bad.example.com:TXT')).toMatch(/Label "-bad"/);
    expect(canonical('a..example.com:TXT')).toMatch(/Label ""/);
    expect(canonical('white space.example.com:TXT')).toMatch(/not a valid domain name/);
  });

  it('match a name exactly, or `*` as one or more labels, and the type', () => {
    const patterns = ['_acme-challenge.example.com:TXT', '_acme-challenge.*.example.org:TXT'];
    expect(recordMatches(patterns, '_acme-challenge.example.com', 'TXT')).toBe(true);
    expect(recordMatches(patterns, '_acme-challenge.example.com', 'A')).toBe(false);
    expect(recordMatches(patterns, 'www.example.com', 'TXT')).toBe(false);
    expect(recordMatches(patterns, '_acme-challenge.www.example.com', 'TXT')).toBe(false);
    expect(recordMatches(patterns, '_acme-challenge.www.example.org', 'TXT')).toBe(true);
    expect(recordMatches(patterns, '_acme-challenge.a.b.example.org', 'TXT')).toBe(true);
    // `*` stands for at least one label: the domain's own challenge needs its own pattern.
    expect(recordMatches(patterns, '_acme-challenge.example.org', 'TXT')).toBe(false);
    expect(recordMatches(patterns, 'x_acme-challenge.www.example.org', 'TXT')).toBe(false);
    expect(recordMatches(['*.example.com:A'], 'www.example.com', 'A')).toBe(true);
    expect(recordMatches(['*.example.com:A'], 'example.com', 'A')).toBe(false);
    expect(recordMatches(['*.example.com:A'], 'www.notexample.com', 'A')).toBe(false);
  });

  it('name the domains a matching record could belong to', () => {
    expect(patternsNameDomain(['_acme-challenge.example.com:TXT'], 'example.com')).toBe(true);
    expect(patternsNameDomain(['_acme-challenge.shop.example.com:TXT'], 'example.com')).toBe(true);
    expect(patternsNameDomain(['_acme-challenge.example.com:TXT'], 'other.com')).toBe(false);
    expect(patternsNameDomain(['_acme-challenge.example.com:TXT'], 'notexample.com')).toBe(false);
    expect(patternsNameDomain(['_acme-challenge.*.example.org:TXT'], 'example.org')).toBe(true);
    // `*` may stand for labels that end in the domain's own.
    expect(patternsNameDomain(['_acme-challenge.*.com:TXT'], 'example.com')).toBe(true);
    expect(patternsNameDomain(['_acme-challenge.*.com:TXT'], 'example.net')).toBe(false);
  });
});
