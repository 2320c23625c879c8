import { afterAll, describe, expect, inject, it } from 'vitest';
import type pg from 'pg';
import { createPool } from './pool.js';
import { createLogger } from '../logger.js';
import { snapshotTextStream, StreamSlots } from './snapshotStream.js';

const pool = createPool(inject('databaseUrl'), createLogger({ logLevel: 'warn' }));
afterAll(async () => pool.end());

/** Numbers 1..count through a cursor, `batch` at a time, as a repository's selectInBatches reads rows. */
async function* numbers(client: pg.PoolClient, count: number, batch: number): AsyncGenerator<number[]> {
  await client.query(`DECLARE numbers NO SCROLL CURSOR FOR SELECT n FROM generate_series(1, ${count}) AS n`);
  for (;;) {
    const { rows } = await client.query<{ n: number }>(`FETCH ${batch} FROM numbers`);
    if (rows.length > 0) yield rows.map((row) => row.n);
    if (rows.length < batch) return;
  }
}

const lines = (ns: number[]) => ns.map((n) => `${n}\n`).join('');
const allIdle = () => pool.totalCount === pool.idleCount && pool.waitingCount === 0;
const slots = new StreamSlots(4, () => new Error('busy'));

describe('a text stream read from one snapshot', () => {
  it('writes the head, then every batch in order, and gives its connection back', async () => {
    const stream = await snapshotTextStream(pool, { head: () => Promise.resolve('head\n'), batches: (client) => numbers(client, 2_500, 1_000), render: lines, slots });
    let text = '';
    for await (const chunk of stream) text += String(chunk);
    expect(text).toBe(`head\n${lines(Array.from({ length: 2_500 }, (_, i) => i + 1))}`);
    await expect.poll(allIdle).toBe(true);
  });

  it('gives its connection back when the reader stops after the first batch, and the pool serves on', async () => {
    const stream = await snapshotTextStream(pool, { head: () => Promise.resolve('head\n'), batches: (client) => numbers(client, 1_000_000, 1_000), render: lines, slots });
    let text = '';
    for await (const chunk of stream) {
      text += String(chunk);
      if (text.includes('\n1000\n')) break;
    }
    expect(text).toMatch(/^head\n1\n2\n/);
    expect(stream.destroyed).toBe(true);
    await expect.poll(allIdle).toBe(true);
    expect((await pool.query<{ one: number }>('SELECT 1 AS one')).rows[0]!.one).toBe(1);
  });

  it('takes the connection back from a reader that has not finished in time', async () => {
    const stream = await snapshotTextStream(pool, { head: () => Promise.resolve('head\n'), batches: (client) => numbers(client, 10_000, 10), render: lines, slots, limitMs: 200 });
    const closed = new Promise<Error | undefined>((resolve) => stream.once('error', resolve).once('close', () => resolve(undefined)));
    stream.read();
    expect(await closed).toBeInstanceOf(Error);
    await expect.poll(allIdle).toBe(true);
  });

  it('answers a failure before the first batch as an error, not a stream, and keeps no connection', async () => {
    await expect(
      snapshotTextStream(pool, {
        head: () => Promise.resolve('head\n'),
        batches: async function* (client) {
          await client.query('SELECT * FROM no_such_table');
          yield [];
        },
        render: () => '',
        slots,
      }),
    ).rejects.toThrow(/no_such_table/);
    await expect.poll(allIdle).toBe(true);
  });

  it('sees none of what commits while it is being read', async () => {
    await pool.query('CREATE TABLE IF NOT EXISTS snapshot_stream_rows (n int)');
    await pool.query('TRUNCATE snapshot_stream_rows');
    await pool.query('INSERT INTO snapshot_stream_rows SELECT generate_series(1, 20)');
    const stream = await snapshotTextStream(pool, {
      head: () => Promise.resolve(''),
      batches: async function* (client) {
        await client.query('DECLARE rows NO SCROLL CURSOR FOR SELECT n FROM snapshot_stream_rows ORDER BY n');
        for (;;) {
          const { rows } = await client.query<{ n: number }>('FETCH 5 FROM rows');
          if (rows.length === 0) return;
          yield rows.map((row) => row.n);
        }
      },
      render: (ns) => `${ns.join(',')};`,
      slots,
    });
    let text = '';
    for await (const chunk of stream) {
      text += String(chunk);
      // Rows that another connection commits after the first batch was read.
      if (text === '1,2,3,4,5;') await pool.query('INSERT INTO snapshot_stream_rows SELECT generate_series(21, 40)');
    }
    expect(text).toBe('1,2,3,4,5;6,7,8,9,10;11,12,13,14,15;16,17,18,19,20;');
    await pool.query('DROP TABLE snapshot_stream_rows');
  });

  it('answers rows that fit in one batch from memory: the connection is back before the text is read', async () => {
    const stream = await snapshotTextStream(pool, { head: () => Promise.resolve('head\n'), batches: (client) => numbers(client, 500, 1_000), render: lines, slots });
    await expect.poll(allIdle).toBe(true);
    let text = '';
    for await (const chunk of stream) text += String(chunk);
    expect(text).toBe(`head\n${lines(Array.from({ length: 500 }, (_, i) => i + 1))}`);
  });

  it('holds a slot while it streams: one more large answer is refused at once, a one-batch answer is not', async () => {
    const one = new StreamSlots(1, () => new Error('busy'));
    const open = (count: number) => snapshotTextStream(pool, { head: () => Promise.resolve(''), batches: (client) => numbers(client, count, 1_000), render: lines, slots: one });
    const first = await open(1_000_000);
    await expect(open(5_000)).rejects.toThrow('busy');
    let small = '';
    for await (const chunk of await open(10)) small += String(chunk);
    expect(small).toBe(lines(Array.from({ length: 10 }, (_, i) => i + 1)));
    // Its slot is back once the first is done: the next large one streams.
    first.destroy();
    await expect.poll(() => open(5_000).then((next) => (next.destroy(), true)).catch(() => false)).toBe(true);
    await expect.poll(allIdle).toBe(true);
  });

  it('holds at most a holder’s own slots, and takes one back from a reader that stops taking the answer', async () => {
    const three = new StreamSlots(3, () => new Error('busy'));
    const holder = (key: string) => ({ key, max: 1, busy: () => new Error(`${key} busy`) });
    const open = (key: string) =>
      snapshotTextStream(pool, { head: () => Promise.resolve(''), batches: (client) => numbers(client, 1_000_000, 1_000), render: lines, slots: three, holder: holder(key), stallMs: 3_000 });
    const stalled = await open('a');
    const closed = new Promise<Error | undefined>((resolve) => stalled.once('error', resolve).once('close', () => resolve(undefined)));
    // One part taken, then no more. The stall window is wide enough that a loaded machine's second
    // open (a connection and a first batch before its slot) is refused before the first is cut off.
    stalled.read();
    await expect(open('a')).rejects.toThrow('a busy');
    const other = await open('b');
    other.destroy();
    expect(await closed).toBeInstanceOf(Error);
    const again = await open('a');
    again.destroy();
    await expect.poll(allIdle).toBe(true);
  });
});
