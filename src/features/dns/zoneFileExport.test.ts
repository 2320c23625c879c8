import { describe, expect, it } from 'vitest';
import { synthesizedApex, zoneFileHead } from './zoneFileExport.js';

describe("a zone file's head", () => {
  it('says a served zone without name servers answers no resolver yet, rather than that nothing serves it', () => {
    const head = zoneFileHead('example.com', synthesizedApex('example.com', [], new Date('2026-11-27T00:00:00Z')), { served: true });
    expect(head).toContain('; no NS records: the domain has no name servers set, so no resolver is sent to this zone yet\n');
    expect(head).not.toMatch(/not served|nothing serves/);
    expect(head).toMatch(/^@ 3600 IN SOA ns1\.example\.com\. hostmaster\.example\.com\. 1795737600 /m);
  });

  it('lists the name servers, and says so when nothing serves the records', () => {
    const head = zoneFileHead('example.com', synthesizedApex('example.com', ['ns1.example.net'], undefined), { served: false });
    expect(head).toContain('@ 3600 IN NS ns1.example.net.\n');
    expect(head).toContain('; not served: no DNS server answers with these records');
    expect(head).not.toContain('no NS records');
  });
});
