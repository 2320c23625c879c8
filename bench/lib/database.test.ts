import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { dropDatabase, ensureDatabase } from '../../src/db/migrate.js';
import { connectionConfig } from '../../src/db/pool.js';
import { freshDatabase } from './database.js';

const base = process.env.DATABASE_URL ?? 'postgres://127.0.0.1:5432/postgres';
const urlOf = (name: string) => Object.assign(new URL(base), { pathname: `/${name}` }).toString();
const name = `freshdb_bench_${process.pid}`;

/** `sql` on a connection of its own to `databaseName`, and the rows it answered. */
async function query<T extends pg.QueryResultRow>(databaseName: string, sql: string): Promise<T[]> {
  const client = new pg.Client(connectionConfig(urlOf(databaseName)));
  await client.connect();
  try {
    return (await client.query<T>(sql)).rows;
  } finally {
    await client.end();
  }
}

const tablesIn = async (databaseName: string) =>
  (await query<{ tablename: string }>(databaseName, `SELECT tablename FROM pg_tables WHERE schemaname = 'public'`)).map((row) => row.tablename);

describe("the bench's database", () => {
  afterAll(() => dropDatabase(urlOf(name)));

  it('is made afresh at every start, even with a connection still open to the old one', async () => {
    await freshDatabase(urlOf(name));
    await query(name, 'CREATE TABLE left_by_an_earlier_run (id int)');
    const holder = new pg.Client(connectionConfig(urlOf(name)));
    await holder.connect();
    holder.on('error', () => undefined);
    try {
      await freshDatabase(urlOf(name));
      expect(await tablesIn(name)).toEqual([]);
    } finally {
      await holder.end().catch(() => undefined);
    }
  });

  it("is never one whose name does not say it is the bench's, which is left as it was", async () => {
    const other = `freshdb_keep_${process.pid}`;
    await ensureDatabase(urlOf(other));
    try {
      await query(other, 'CREATE TABLE kept (id int)');
      await expect(freshDatabase(urlOf(other))).rejects.toThrow(/contains "bench"/);
      expect(await tablesIn(other)).toEqual(['kept']);
    } finally {
      await dropDatabase(urlOf(other));
    }
  });
});
