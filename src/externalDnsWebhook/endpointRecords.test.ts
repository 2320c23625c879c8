import { describe, expect, it } from 'vitest';
import { adjustEndpoint, endpointsOf, quoteTxt, recordOfTarget, txtText, zoneOf, type StoredRecord } from './endpointRecords.js';
import type { Endpoint } from './protocol.js';

const OWNERSHIP = '"heritage=external-dns,external-dns/owner=cluster-a,external-dns/resource=service/default/web"';

const endpoint = (fields: Partial<Endpoint> & Pick<Endpoint, 'dnsName' | 'recordType' | 'targets'>): Endpoint => ({
  setIdentifier: '',
  recordTTL: 0,
  labels: {},
  providerSpecific: [],
  ...fields,
});

let nextId = 0;
const stored = (fields: Partial<StoredRecord> & Pick<StoredRecord, 'type' | 'name' | 'content'>): StoredRecord => ({
  id: `rec_${++nextId}`,
  ttl: 3600,
  priority: null,
  version: 1,
  ...fields,
});

describe('TXT values', () => {
  it('reads external-dns’s quoted ownership value whole, commas and all, and writes it back the same', () => {
    expect(txtText(OWNERSHIP)).toBe('heritage=external-dns,external-dns/owner=cluster-a,external-dns/resource=service/default/web');
    expect(quoteTxt(txtText(OWNERSHIP))).toBe(OWNERSHIP);
  });

  it('decodes escapes and joins several strings; a bare or unbalanced value is its own text', () => {
    expect(txtText('"say \\"hi\\", ok" "\\065B"')).toBe('say "hi", okAB');
    expect(quoteTxt('say "hi", \\o/')).toBe('"say \\"hi\\", \\\\o/"');
    expect(txtText('v=spf1 include:_spf.example.net -all')).toBe('v=spf1 include:_spf.example.net -all');
    expect(txtText('"unbalanced')).toBe('"unbalanced');
  });
});

describe('records as endpoints', () => {
  it('answers one endpoint per name and type, in the forms external-dns writes', () => {
    const endpoints = endpointsOf('example.com', [
      stored({ type: 'A', name: 'www', content: '192.0.2.1', ttl: 300 }),
      stored({ type: 'A', name: 'www', content: '192.0.2.2', ttl: 120 }),
      stored({ type: 'TXT', name: 'a-www', content: 'note, with "quotes"' }),
      stored({ type: 'TXT', name: 'a-www', content: OWNERSHIP.slice(1, -1) }),
      stored({ type: 'MX', name: '@', content: 'mail.example.net', priority: 10 }),
      stored({ type: 'SRV', name: '_sip._tcp', content: '5 5060 sip.example.net', priority: 20 }),
      stored({ type: 'ALIAS', name: '@', content: 'lb.example.net' }),
      stored({ type: 'CAA', name: '@', content: '0 issue "letsencrypt.org"' }),
      stored({ type: 'HTTPS', name: '@', content: '1 . alpn=h2' }),
    ]);
    expect(endpoints).toEqual([
      { dnsName: 'www.example.com', targets: ['192.0.2.1', '192.0.2.2'], recordType: 'A', setIdentifier: '', recordTTL: 120, labels: {}, providerSpecific: [] },
      // The registry reads ownership from the first value only.
      expect.objectContaining({ dnsName: 'a-www.example.com', recordType: 'TXT', targets: [OWNERSHIP, '"note, with \\"quotes\\""'] }),
      expect.objectContaining({ dnsName: 'example.com', recordType: 'MX', targets: ['10 mail.example.net'] }),
      expect.objectContaining({ dnsName: '_sip._tcp.example.com', recordType: 'SRV', targets: ['20 5 5060 sip.example.net'] }),
      expect.objectContaining({ dnsName: 'example.com', recordType: 'CNAME', targets: ['lb.example.net'] }),
      expect.objectContaining({ dnsName: 'example.com', recordType: 'CAA', targets: ['0 issue "letsencrypt.org"'] }),
    ]);
  });

  it('reads a target as the api stores it, and refuses what the api would', () => {
    const mx = recordOfTarget('example.com', { dnsName: 'Example.COM.', recordType: 'MX' }, '10 Mail.Example.net.', 0);
    expect(mx).toEqual({ ok: true, value: { type: 'MX', name: '@', content: 'mail.example.net', ttl: 3600, priority: 10 } });
    expect(recordOfTarget('example.com', { dnsName: 'example.com', recordType: 'CNAME' }, 'lb.example.net', 300)).toMatchObject({ ok: true, value: { type: 'ALIAS', name: '@' } });
    expect(recordOfTarget('example.com', { dnsName: 'www.example.com', recordType: 'A' }, 'lb.example.net', 300)).toMatchObject({ ok: false, issues: [{ type: 'ipv4_invalid' }] });
    expect(recordOfTarget('example.com', { dnsName: 'www.example.com', recordType: 'MX' }, 'mail.example.net', 300)).toMatchObject({ ok: false, issues: [{ type: 'priority_required' }] });
    expect(recordOfTarget('example.com', { dnsName: 'www.example.com', recordType: 'DNAME' }, 'x.example.net', 300)).toMatchObject({ ok: false, issues: [{ type: 'record_type_unsupported' }] });
  });

  it('finds the longest zone a name is in', () => {
    expect(zoneOf(['example.com', 'dev.example.com'], 'a.dev.example.com')).toBe('dev.example.com');
    expect(zoneOf(['example.com'], 'example.com')).toBe('example.com');
    expect(zoneOf(['example.com'], 'a-example.com')).toBeUndefined();
  });
});

describe('adjusting desired endpoints', () => {
  const zones = ['example.com'];

  it('puts them in the form the records read back in, so a converged plan is empty', () => {
    const adjusted = adjustEndpoint(
      zones,
      endpoint({
        dnsName: 'TXT.Example.com.',
        recordType: 'TXT',
        targets: ['v=spf1 -all', '"v=spf1 -all"', '  padded  '],
        recordTTL: 10,
        providerSpecific: [{ name: 'webhook/foo', value: 'bar' }],
        labels: { resource: 'service/default/web' },
      }),
    );
    expect(adjusted).toEqual({
      endpoint: endpoint({ dnsName: 'txt.example.com', recordType: 'TXT', targets: ['"v=spf1 -all"', '"padded"'], recordTTL: 60, labels: { resource: 'service/default/web' } }),
    });
    expect(adjustEndpoint(zones, endpoint({ dnsName: 'www.example.com', recordType: 'CNAME', targets: ['LB.example.net.'], recordTTL: 200_000 }))).toEqual({
      endpoint: endpoint({ dnsName: 'www.example.com', recordType: 'CNAME', targets: ['lb.example.net'], recordTTL: 86_400 }),
    });
  });

  it('leaves out what no record can hold, saying why', () => {
    expect(adjustEndpoint(zones, endpoint({ dnsName: 'www.example.com', recordType: 'A', targets: ['192.0.2.1'], setIdentifier: 'eu' }))).toEqual({ leftOut: expect.stringContaining('set identifiers') });
    expect(adjustEndpoint(zones, endpoint({ dnsName: 'www.example.com', recordType: 'A', targets: ['not-an-address'] }))).toEqual({ leftOut: expect.stringContaining('IPv4') });
    // Outside every zone it is external-dns's domain filter that leaves it out.
    expect(adjustEndpoint(zones, endpoint({ dnsName: 'www.other.org', recordType: 'A', targets: ['x'] }))).toMatchObject({ endpoint: { dnsName: 'www.other.org' } });
  });
});
