import { describe, expect, it } from 'vitest';
import { parseDomainName } from './domainName.js';

const ok = (input: string) => {
  const parsed = parseDomainName(input);
  if (!parsed.ok) throw new Error(`${input}: ${parsed.reason}`);
  return parsed.value;
};
const reason = (input: string) => {
  const parsed = parseDomainName(input);
  return parsed.ok ? 'valid' : parsed.reason;
};

describe('parseDomainName', () => {
  it('lower-cases, trims and drops a trailing dot', () => {
    expect(ok('  Example.COM. ')).toEqual({ name: 'example.com', unicodeName: 'example.com', labels: ['example', 'com'] });
  });

  it('converts IDN to punycode and back', () => {
    expect(ok('Bücher.de')).toEqual({ name: 'xn--bcher-kva.de', unicodeName: 'bücher.de', labels: ['xn--bcher-kva', 'de'] });
    expect(ok('xn--bcher-kva.de').unicodeName).toBe('bücher.de');
    expect(ok('例え.jp').name).toBe('xn--r8jz45g.jp');
  });

  it('accepts multi-label suffixes and hyphens inside labels', () => {
    expect(ok('my-shop.co.uk').labels).toEqual(['my-shop', 'co', 'uk']);
    expect(ok('a.io').name).toBe('a.io');
  });

  it('refuses what is not a domain name, saying why', () => {
    expect(reason('')).toBe('Domain name is empty');
    expect(reason('localhost')).toMatch(/needs a TLD/);
    expect(reason('exa mple.com')).toMatch(/white space/);
    expect(reason('a..com')).toMatch(/empty label/);
    expect(reason('-start.com')).toMatch(/inner hyphens/);
    expect(reason('end-.com')).toMatch(/inner hyphens/);
    expect(reason('under_score.com')).toMatch(/inner hyphens/);
    expect(reason(`${'a'.repeat(64)}.com`)).toMatch(/longer than 63/);
    expect(reason(`${'a.'.repeat(127)}com`)).toMatch(/longer than 253/);
    expect(reason('ab--cd.com')).toMatch(/positions 3 and 4/);
    expect(reason('xn--zz.com')).toMatch(/internationalised/);
    expect(reason('example.123')).toMatch(/numeric/);
  });
});
