import pg from 'pg';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { connectionConfig } from './pool.js';
import type { Principal } from '../auth/principal.js';
import { ModeScopedTable, modeOf } from './modeScope.js';

interface Thing {
  id: string;
  label: string;
  livemode: boolean;
}

const LIVE = modeOf(true);
const TEST = modeOf(false);
const things = new ModeScopedTable<Thing>('mode_scope_things', 'id, label, livemode');
let client: pg.Client;

beforeAll(async () => {
  client = new pg.Client(connectionConfig(inject('databaseUrl')));
  await client.connect();
  await client.query(
    `CREATE TEMP TABLE mode_scope_things (id text PRIMARY KEY, label text NOT NULL, livemode boolean NOT NULL,
       version integer NOT NULL DEFAULT 1, touched_at timestamptz)`,
  );
  await things.insert(client, LIVE, { id: 'live-1', label: 'real domain' });
  await things.insert(client, TEST, { id: 'test-1', label: 'sandbox domain' });
});
afterAll(async () => client?.end());

describe('ModeScopedTable', () => {
  it('stamps inserts with the caller mode', async () => {
    const { rows } = await client.query('SELECT id, livemode FROM mode_scope_things ORDER BY id');
    expect(rows).toEqual([
      { id: 'live-1', livemode: true },
      { id: 'test-1', livemode: false },
    ]);
  });

  it('inserts many rows in one statement, each stamped with the caller mode, nulls and quotes kept', async () => {
    const rows = Array.from({ length: 7 }, (_, i) => ({ id: `many-${i}`, label: i === 3 ? 'a "quoted", {braced} \\ label' : `row ${i}` }));
    const sent: string[] = [];
    const counting = { query: (text: string, values: unknown[]) => (sent.push(text), client.query(text, values)) };
    const { count, at } = await things.insertMany(counting as unknown as pg.Client, TEST, { id: 'text', label: 'text' }, rows);
    expect(sent).toHaveLength(1);
    expect(count).toBe(7);
    expect(at).toBeInstanceOf(Date);
    const inserted = await things.select(client, TEST, 'id LIKE $2', ['many-%'], 'ORDER BY id');
    expect(inserted.map((t) => [t.id, t.label])).toEqual(rows.map((r) => [r.id, r.label]));
    expect(await things.select(client, LIVE, 'id LIKE $2', ['many-%'])).toEqual([]);
    expect((await things.insertMany(client, LIVE, { id: 'text', label: 'text' }, [])).count).toBe(0);
    await expect(things.insertMany(client, LIVE, { id: 'text', label: 'text; DROP TABLE x' }, rows)).rejects.toThrow(/column type/);
    await things.delete(client, TEST, 'id LIKE $2', ['many-%']);
  });

  it('never reads an object of the other mode, even by its id', async () => {
    expect(await things.findOne(client, TEST, 'id = $2', ['live-1'])).toBeUndefined();
    expect(await things.findOne(client, LIVE, 'id = $2', ['live-1'])).toMatchObject({ label: 'real domain' });
    expect((await things.select(client, TEST, 'true', [])).map((t) => t.id)).toEqual(['test-1']);
  });

  it('never updates or deletes an object of the other mode', async () => {
    expect(await things.update(client, TEST, 'id = $2', ['live-1'], { label: 'hijacked' })).toEqual([]);
    expect(await things.delete(client, TEST, 'id = $2', ['live-1'])).toBe(0);
    const updated = await things.update(client, LIVE, 'id = $2', ['live-1'], { label: 'renamed' });
    expect(updated).toEqual([{ id: 'live-1', label: 'renamed', livemode: true }]);
  });

  it('inserts only when absent, stamped with the caller mode', async () => {
    await client.query('CREATE TEMP TABLE mode_scope_pairs (id text, label text NOT NULL, livemode boolean NOT NULL, PRIMARY KEY (id, livemode))');
    const pairs = new ModeScopedTable<Thing>('mode_scope_pairs', 'id, label, livemode');
    expect(await pairs.insertIfAbsent(client, LIVE, { id: 'p', label: 'first' })).toEqual({ id: 'p', label: 'first', livemode: true });
    expect(await pairs.insertIfAbsent(client, LIVE, { id: 'p', label: 'second' })).toBeUndefined();
    expect(await pairs.insertIfAbsent(client, TEST, { id: 'p', label: 'sandbox' })).toEqual({ id: 'p', label: 'sandbox', livemode: false });
    expect(await pairs.select(client, LIVE, 'true', [])).toEqual([{ id: 'p', label: 'first', livemode: true }]);
    await expect(pairs.insertIfAbsent(client, TEST, { id: 'q', label: 'x', livemode: true })).rejects.toThrow(/livemode is set/);
  });

  it('computes a version bump and a timestamp in the same statement, for rows of the caller mode only', async () => {
    const where = 'id = $2 AND version = $3';
    const computed = { increment: ['version'], now: ['touched_at'] };
    expect(await things.update(client, LIVE, where, ['test-1', 1], { label: 'x' }, computed)).toEqual([]);
    expect(await things.update(client, TEST, where, ['test-1', 1], { label: 'edited' }, computed)).toHaveLength(1);
    expect(await things.update(client, TEST, where, ['test-1', 1], { label: 'stale' }, computed)).toEqual([]);
    const { rows } = await client.query(
      `SELECT label, version, touched_at BETWEEN now() - interval '1 minute' AND now() AS "touchedNow"
       FROM mode_scope_things WHERE id = 'test-1'`,
    );
    expect(rows).toEqual([{ label: 'edited', version: 2, touchedNow: true }]);
    await expect(things.update(client, TEST, 'id = $2', ['test-1'], {}, { increment: ['version; DROP'] })).rejects.toThrow(/not a column/);
    await expect(things.update(client, TEST, 'id = $2', ['test-1'], {}, { now: ['livemode'] })).rejects.toThrow(/livemode is set/);
  });

  it('refuses queries that would bypass the mode', async () => {
    await expect(things.select(client, TEST, 'livemode = $1 OR true', [])).rejects.toThrow(/reserve \$1/);
    await expect(things.insert(client, TEST, { id: 'x', label: 'x', livemode: true })).rejects.toThrow(/livemode is set/);
    await expect(things.update(client, TEST, 'id = $2', ['test-1'], { livemode: true })).rejects.toThrow(/livemode is set/);
  });

  // Checked by the type checker: these lines fail to compile if a Mode may be anything with a `livemode`.
  it('takes only a mode made by modeOf, never a principal or a row that has a livemode', async () => {
    const principal = { livemode: false, mode: 'test' } as Principal;
    // @ts-expect-error a principal is not a mode
    await expect(things.count(client, principal, 'id = $2', ['test-1'])).resolves.toBe(1);
    // @ts-expect-error nor is an object literal
    await expect(things.count(client, { livemode: false }, 'id = $2', ['test-1'])).resolves.toBe(1);
    expect(await things.count(client, modeOf(principal.livemode), 'id = $2', ['test-1'])).toBe(1);
  });
});
