import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { connectionConfig } from '../../src/db/pool.js';
import { freshDatabase } from './database.js';

const base = process.env.DATABASE_URL ?? 'postgres://127.0.0.1:5432/postgres';
const urlOf = (name: string) => Object.assign(new URL(base), { pathname: `/${name}` }).toString();
const name = `freshdb_bench_${process.pid}`;

async function tablesIn(databaseName: string): Promise<string[]> {
  const client = new pg.Client(connectionConfig(urlOf(databaseName)));
  await client.connect();
  try {
    return (await client.query<{ tablename: string }>(`SELECT tablename FROM pg_tables WHERE schemaname = 'public'`)).rows.map((row) => row.tablename);
  } finally {
    await client.end();
  }
}

async function run(databaseName: string, sql: string): Promise<void> {
  const client = new pg.Client(connectionConfig(urlOf(databaseName)));
  await client.connect();
  await client.query(sql).finally(() => client.end());
}

describe("the bench's database", () => {
  afterAll(() => run('postgres', `DROP DATABASE IF EXISTS ${name} WITH (FORCE)`));

  it('is made afresh at every start, even with a connection still open to the old one', async () => {
    await freshDatabase(urlOf(name));
    await run(name, 'CREATE TABLE left_by_an_earlier_run (id int)');
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
    await run('postgres', `CREATE DATABASE ${other}`);
    try {
      await run(other, 'CREATE TABLE kept (id int)');
      await expect(freshDatabase(urlOf(other))).rejects.toThrow(/contains "bench"/);
      expect(await tablesIn(other)).toEqual(['kept']);
    } finally {
      await run('postgres', `DROP DATABASE IF EXISTS ${other} WITH (FORCE)`);
    }
  });
});
