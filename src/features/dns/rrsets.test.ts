import { describe, expect, it } from 'vitest';
import type { RecordFields } from './records.js';
import { rrsetChangesInBatches } from './rrsets.js';

const txt = (name: string, n: number): RecordFields => ({ type: 'TXT', name, content: `"v${n}"`, ttl: 300 + n, priority: null });
const a = (name: string, n: number): RecordFields => ({ type: 'A', name, content: `192.0.2.${n}`, ttl: 300, priority: null });

/** The batches as a cursor gives them: each after a wait. */
async function* readAs(batches: RecordFields[][]): AsyncGenerator<RecordFields[]> {
  for (const batch of batches) {
    await new Promise((resolve) => setImmediate(resolve));
    yield batch;
  }
}

async function changesOf(batches: RecordFields[][], changeRecords: number) {
  const out: { name: string; type: string; count: number; ttl?: number }[][] = [];
  for await (const changes of rrsetChangesInBatches(readAs(batches), changeRecords)) {
    out.push(changes.map((c) => (c.changetype === 'REPLACE' ? { name: c.name, type: c.type, count: c.records.length, ttl: c.ttl } : { name: c.name, type: c.type, count: 0 })));
  }
  return out;
}

describe('RRset changes from records read in batches', () => {
  it('keeps an RRset whole when the batches split it, and starts a new change once one holds enough records', async () => {
    const records = [a('@', 1), a('@', 2), txt('big', 1), txt('big', 2), txt('big', 3), txt('big', 4), a('www', 1), a('www', 2), a('zz', 1)];
    // Batches of two rows cut both the apex pair's neighbour and the TXT RRset.
    const batches = [records.slice(0, 3), records.slice(3, 5), records.slice(5, 7), records.slice(7)];
    expect(await changesOf(batches, 3)).toEqual([
      [
        { name: '@', type: 'A', count: 2, ttl: 300 },
        { name: 'big', type: 'TXT', count: 4, ttl: 301 },
      ],
      [
        { name: 'www', type: 'A', count: 2, ttl: 300 },
        { name: 'zz', type: 'A', count: 1, ttl: 300 },
      ],
    ]);
  });

  it('tells two types at one name apart, and gives nothing for no records', async () => {
    expect(await changesOf([[a('mail', 1), txt('mail', 1)]], 1_000)).toEqual([
      [
        { name: 'mail', type: 'A', count: 1, ttl: 300 },
        { name: 'mail', type: 'TXT', count: 1, ttl: 301 },
      ],
    ]);
    expect(await changesOf([], 10)).toEqual([]);
  });
});
