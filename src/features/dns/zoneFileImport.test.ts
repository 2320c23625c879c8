import { describe, expect, it } from 'vitest';
import { planImport } from './zoneFileImport.js';
import type { DnsRecord } from './dnsRecords.repository.js';
import type { FileRecord } from './zoneFileRecords.js';
import type { RecordType } from './records.js';

const row = (id: string, type: RecordType, name: string, content: string, ttl = 3600, priority: number | null = null): DnsRecord => ({
  id,
  type,
  name,
  content,
  ttl,
  priority,
  domainId: 'dom_1',
  orgId: 'org_1',
  version: 1,
  createdAt: new Date(0),
  updatedAt: new Date(0),
});
const file = (line: number, type: RecordType, name: string, content: string, ttl = 3600, priority: number | null = null): FileRecord => ({ line, type, name, content, ttl, priority });
const summary = (plan: ReturnType<typeof planImport>) => ({
  create: plan.create.map((c) => `${c.line} ${c.name} ${c.type} ${c.content}`),
  update: plan.update.map((u) => `${u.line} ${u.id} ${u.content} ${u.ttl}`),
  delete: plan.delete.map((d) => d.id),
});

describe('planImport', () => {
  const existing = [
    row('rec_a1', 'A', 'www', '192.0.2.1'),
    row('rec_a2', 'A', 'www', '192.0.2.2'),
    row('rec_mx', 'MX', '@', 'mx1.example.net', 3600, 10),
    row('rec_cn', 'CNAME', 'docs', 'old.example.net'),
    row('rec_txt', 'TXT', '@', 'keep me'),
  ];
  const wanted = [
    file(2, 'A', 'www', '192.0.2.1', 300),
    file(3, 'A', 'www', '192.0.2.9'),
    file(4, 'MX', '@', 'mx1.example.net', 3600, 20),
    file(5, 'CNAME', 'docs', 'new.example.net'),
    file(6, 'AAAA', 'www', '2001:db8::1'),
  ];

  it('merge: keeps what the file does not hold; a changed TTL is an update, other data a new record, except for a CNAME', () => {
    expect(summary(planImport(existing, wanted, 'merge'))).toEqual({
      create: ['3 www A 192.0.2.9', '4 @ MX mx1.example.net', '6 www AAAA 2001:db8::1'],
      update: ['2 rec_a1 192.0.2.1 300', '5 rec_cn new.example.net 3600'],
      delete: [],
    });
  });

  it('replace: pairs what changed within an RRset into updates (the record keeps its id) and deletes the rest', () => {
    expect(summary(planImport(existing, wanted, 'replace'))).toEqual({
      create: ['6 www AAAA 2001:db8::1'],
      update: ['2 rec_a1 192.0.2.1 300', '3 rec_a2 192.0.2.9 3600', '4 rec_mx mx1.example.net 3600', '5 rec_cn new.example.net 3600'],
      delete: ['rec_txt'],
    });
    expect(planImport(existing, wanted, 'replace').update.find((u) => u.id === 'rec_mx')).toMatchObject({ priority: 20, previous: { priority: 10 } });
  });

  it('changes nothing when the file holds exactly the records there are', () => {
    const same = existing.map((r, i) => file(i + 1, r.type, r.name, r.content, r.ttl, r.priority));
    for (const mode of ['merge', 'replace'] as const) expect(summary(planImport(existing, same, mode))).toEqual({ create: [], update: [], delete: [] });
  });
});
