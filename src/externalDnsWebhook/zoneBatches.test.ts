import { describe, expect, it } from 'vitest';
import { changesByZone, zoneBatches, type ZoneChanges } from './zoneBatches.js';
import type { Changes, Endpoint } from './protocol.js';
import type { StoredRecord } from './endpointRecords.js';

const ZONE = 'example.com';
const owner = (name: string) => `"heritage=external-dns,external-dns/owner=a,external-dns/resource=service/default/${name}"`;

const endpoint = (dnsName: string, recordType: string, targets: string[], extra: Partial<Endpoint> = {}): Endpoint => ({
  dnsName,
  recordType,
  targets,
  setIdentifier: '',
  recordTTL: 0,
  labels: {},
  providerSpecific: [],
  ...extra,
});
/** The ownership TXT external-dns's registry writes beside a record. */
const ownership = (record: string, name: string) => endpoint(`a-${record}`, 'TXT', [owner(name)], { labels: { ownedRecord: record } });

let nextId = 0;
const stored = (type: StoredRecord['type'], name: string, content: string, extra: Partial<StoredRecord> = {}): StoredRecord => ({ id: `rec_${++nextId}`, type, name, content, ttl: 3600, priority: null, version: 2, ...extra });

function zoneChanges(changes: Partial<Changes>): ZoneChanges {
  const { byZone } = changesByZone([ZONE], { create: [], updateOld: [], updateNew: [], delete: [], ...changes });
  return byZone.get(ZONE) ?? { create: [], updateOld: [], updateNew: [], delete: [] };
}

function batchesOf(current: StoredRecord[], changes: Partial<Changes>) {
  const planned = zoneBatches(ZONE, current, zoneChanges(changes));
  if (!('batches' in planned)) throw new Error(`refused: ${JSON.stringify(planned.issues)}`);
  return planned.batches;
}

describe('a zone’s changes as batches', () => {
  it('creates a record and its ownership TXT in one batch, the TXT unquoted as the api stores text', () => {
    const batches = batchesOf([], { create: [endpoint('www.example.com', 'A', ['192.0.2.1', '192.0.2.2'], { recordTTL: 300 }), ownership('www.example.com', 'web')] });
    expect(batches).toEqual([
      [
        { op: 'create', record: { type: 'A', name: 'www', content: '192.0.2.1', ttl: 300 } },
        { op: 'create', record: { type: 'A', name: 'www', content: '192.0.2.2', ttl: 300 } },
        { op: 'create', record: { type: 'TXT', name: 'a-www', content: owner('web').slice(1, -1) } },
      ],
    ]);
  });

  it('makes an updated RRset exactly its new targets, and changes a TTL only when one is asked for', () => {
    const current = [stored('A', 'www', '192.0.2.1'), stored('A', 'www', '192.0.2.2'), stored('TXT', 'a-www', owner('web').slice(1, -1))];
    const [keep, drop, txt] = current;
    const batches = batchesOf(current, {
      // The old side is stale (it misses .2): the new side still decides.
      updateOld: [endpoint('www.example.com', 'A', ['192.0.2.1']), ownership('www.example.com', 'web')],
      updateNew: [endpoint('www.example.com', 'A', ['192.0.2.1', '192.0.2.3'], { recordTTL: 600 }), ownership('www.example.com', 'web2')],
    });
    expect(batches).toEqual([
      [
        { op: 'delete', id: drop!.id, if_match: 2 },
        { op: 'delete', id: txt!.id, if_match: 2 },
        { op: 'update', id: keep!.id, changes: { ttl: 600 }, if_match: 2 },
        { op: 'create', record: { type: 'A', name: 'www', content: '192.0.2.3', ttl: 600 } },
        { op: 'create', record: { type: 'TXT', name: 'a-www', content: owner('web2').slice(1, -1), ttl: 3600 } },
      ],
    ]);
    expect(batchesOf(current, { updateOld: [endpoint('www.example.com', 'A', ['192.0.2.1', '192.0.2.2'])], updateNew: [endpoint('www.example.com', 'A', ['192.0.2.2', '192.0.2.1'])] })).toEqual([]);
  });

  it('deletes only the values named, and replaces an A record by a CNAME with the delete first', () => {
    const current = [stored('A', 'www', '192.0.2.1'), stored('A', 'www', '192.0.2.9'), stored('AAAA', 'www', '2001:db8::1')];
    const batches = batchesOf(current, {
      delete: [endpoint('www.example.com', 'A', ['192.0.2.1']), endpoint('www.example.com', 'AAAA', ['2001:DB8:0::1'])],
    });
    expect(batches).toEqual([[{ op: 'delete', id: current[0]!.id, if_match: 2 }, { op: 'delete', id: current[2]!.id, if_match: 2 }]]);

    const swap = batchesOf([stored('A', 'app', '192.0.2.1')], { delete: [endpoint('app.example.com', 'A', ['192.0.2.1'])], create: [endpoint('app.example.com', 'CNAME', ['lb.example.net'])] });
    expect(swap[0]!.map((operation) => operation.op)).toEqual(['delete', 'create']);
  });

  it('splits past 100 operations between names, never a record from its ownership TXT', () => {
    const create = Array.from({ length: 40 }, (_, i) => [
      endpoint(`svc${i}.example.com`, 'A', ['192.0.2.1', '192.0.2.2']),
      ownership(`svc${i}.example.com`, `svc${i}`),
    ]).flat();
    const batches = batchesOf([], { create });
    expect(batches.map((batch) => batch.length)).toEqual([99, 21]);
    for (const batch of batches) {
      const names = batch.map((operation) => (operation.op === 'create' ? operation.record.name : ''));
      for (const name of names.filter((n) => n.startsWith('a-'))) expect(names).toContain(name.slice(2));
    }
  });

  it('refuses the whole change set when one target is invalid, naming it where the request had it', () => {
    const { byZone } = changesByZone([ZONE], {
      create: [endpoint('ok.example.com', 'A', ['192.0.2.1']), endpoint('bad.example.com', 'A', ['192.0.2.1', 'not-an-address'])],
      updateOld: [],
      updateNew: [endpoint('mx.example.com', 'MX', ['mail.example.net']), endpoint('x.example.com', 'DNAME', ['y.example.net'])],
      delete: [endpoint('gone.example.com', 'A', ['never-stored'])],
    });
    expect(zoneBatches(ZONE, [], byZone.get(ZONE)!)).toEqual({
      issues: [
        { loc: ['body', 'updateNew', '0', 'targets', '0'], msg: expect.stringContaining('priority'), type: 'priority_required' },
        { loc: ['body', 'updateNew', '1', 'recordType'], msg: expect.stringContaining('DNAME'), type: 'record_type_unsupported' },
        { loc: ['body', 'create', '1', 'targets', '1'], msg: expect.stringContaining('IPv4'), type: 'ipv4_invalid' },
      ],
    });
  });

  it('sets apart names in none of the zones, and puts each name in its longest zone', () => {
    const { byZone, outside } = changesByZone(['example.com', 'dev.example.com'], {
      create: [endpoint('example.com', 'A', ['192.0.2.1']), endpoint('a-example.com', 'TXT', [owner('apex')]), endpoint('www.dev.example.com', 'A', ['192.0.2.2'])],
      updateOld: [],
      updateNew: [],
      delete: [],
    });
    expect(outside.map((e) => e.dnsName)).toEqual(['a-example.com']);
    expect([...byZone.keys()].sort()).toEqual(['dev.example.com', 'example.com']);
  });
});
