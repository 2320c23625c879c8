import pg from 'pg';
import { inject } from 'vitest';
import { connectionConfig } from '../../src/db/pool.js';
import { readdir } from 'node:fs/promises';
import { runner } from 'node-pg-migrate';
import { dropDatabase, ensureDatabase, migrateUp, MIGRATIONS_DIR } from '../../src/db/migrate.js';
import { createLogger } from '../../src/logger.js';
import { randomBase62 } from '../../src/ids.js';

export interface OwnDatabase {
  url: string;
  drop(): Promise<void>;
}

/**
 * A migrated database of the file's own, for tests that compare whole-table row counts (test files
 * run in parallel against the run's shared database, so only a private one holds still) and for
 * apps that run the outbox dispatcher (it takes every undispatched event in its database). With
 * `before`, only the migrations named before it are applied (a test of a migration's backfill
 * writes the old rows, then runs migrateUp itself).
 */
export async function createOwnDatabase(options: { before?: string } = {}): Promise<OwnDatabase> {
  const url = new URL(inject('databaseUrl'));
  url.pathname = `${url.pathname}_${randomBase62(6).toLowerCase()}`;
  const databaseUrl = url.toString();
  await ensureDatabase(databaseUrl);
  if (options.before === undefined) {
    await migrateUp(databaseUrl, createLogger({ logLevel: 'warn' }));
  } else {
    const earlier = (await readdir(MIGRATIONS_DIR)).filter((file) => file.endsWith('.sql') && file < options.before!);
    const migrate = { databaseUrl: connectionConfig(databaseUrl), dir: MIGRATIONS_DIR, migrationsTable: 'pgmigrations', log: () => {} };
    await runner({ ...migrate, direction: 'up', count: earlier.length });
  }
  return {
    url: databaseUrl,
    drop: () => dropDatabase(databaseUrl),
  };
}

/** Rows in every table of the public schema, by table name. */
export async function rowCounts(db: pg.Pool): Promise<Record<string, number>> {
  const { rows: tables } = await db.query<{ name: string }>(
    `SELECT table_name AS name FROM information_schema.tables WHERE table_schema = 'public' AND table_type = 'BASE TABLE' ORDER BY 1`,
  );
  const counts: Record<string, number> = {};
  for (const { name } of tables) {
    const { rows } = await db.query<{ n: number }>(`SELECT count(*)::int AS n FROM ${pg.escapeIdentifier(name)}`);
    counts[name] = rows[0]!.n;
  }
  return counts;
}
