import { describe, expect, it } from 'vitest';
import { checkRegistrableName } from './registrableName.js';
import type { PriceTable } from './registrar/port.js';

const price = { register: 1000, renew: 1000, transfer: 1000 };
const table: PriceTable = { currency: 'USD', tlds: { com: price, 'co.uk': price, uk: price, de: price } };
const check = (input: string, reservedZone?: string) => {
  const answer = checkRegistrableName(input, table, reservedZone);
  return answer.ok ? `${answer.name.name} under ${answer.tld}` : `${answer.type}: ${answer.reason}`;
};

describe('checkRegistrableName', () => {
  it('takes a name one label below a sold suffix, the longest suffix first', () => {
    expect(check('Example.COM.')).toBe('example.com under com');
    expect(check('shop.co.uk')).toBe('shop.co.uk under co.uk');
    expect(check('shop.uk')).toBe('shop.uk under uk');
    expect(check('bücher.de')).toBe('xn--bcher-kva.de under de');
  });

  it('refuses a name inside a registrable one, saying which to register instead', () => {
    expect(check('www.example.com')).toBe(
      'domain_name_not_registrable: www.example.com is not a registrable name: register example.com (one label below .com), then add www as a record of it',
    );
    expect(check('a.b.shop.co.uk')).toBe(
      'domain_name_not_registrable: a.b.shop.co.uk is not a registrable name: register shop.co.uk (one label below .co.uk), then add a.b as a record of it',
    );
  });

  it('refuses a sold suffix itself', () => {
    expect(check('co.uk')).toBe('domain_name_not_registrable: co.uk is a suffix names are registered under, not a name; register one label below it');
  });

  it('refuses the ACME-DNS zone and the names under it, however many labels it has', () => {
    expect(check('acme-dns.com', 'acme-dns.com')).toMatch(/^domain_name_not_registrable: acme-dns\.com is in acme-dns\.com, which this service uses for ACME-DNS/);
    expect(check('x.acme-dns.com', 'acme-dns.com')).toMatch(/^domain_name_not_registrable: x\.acme-dns\.com is in acme-dns\.com/);
    expect(check('acme.example.com', 'acme.example.com')).toMatch(/^domain_name_not_registrable: acme\.example\.com is in acme\.example\.com/);
    // Its parent is another name: the zone inside it is served apart from it.
    expect(check('example.com', 'acme.example.com')).toBe('example.com under com');
    expect(check('notacme-dns.com', 'acme-dns.com')).toBe('notacme-dns.com under com');
  });

  it('answers malformed names and unsold TLDs as before', () => {
    expect(check('-bad-.com')).toMatch(/^domain_name_invalid: /);
    expect(check('example.museum')).toBe('tld_unsupported: The TLD .museum is not supported; see GET /api/v1/domains/tlds');
  });
});
