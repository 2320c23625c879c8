import path from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { runner } from 'node-pg-migrate';
import type { Logger } from '../logger.js';
import { connectionConfig } from './pool.js';

export const MIGRATIONS_DIR = fileURLToPath(new URL('../../migrations', import.meta.url)).replace(
  `${path.sep}dist${path.sep}migrations`,
  `${path.sep}migrations`,
);

/** The database's name in `databaseUrl`, and `run` given a client of the server's `postgres` database. */
async function withServerAdmin(databaseUrl: string, run: (admin: pg.Client, name: string) => Promise<void>): Promise<void> {
  const url = new URL(databaseUrl);
  const name = decodeURIComponent(url.pathname.slice(1));
  url.pathname = '/postgres';
  const admin = new pg.Client(connectionConfig(url.toString()));
  await admin.connect();
  try {
    await run(admin, name);
  } finally {
    await admin.end();
  }
}

/** Creates the database named in the URL when it does not exist yet (development and tests). */
export async function ensureDatabase(databaseUrl: string): Promise<void> {
  await withServerAdmin(databaseUrl, async (admin, name) => {
    try {
      const exists = await admin.query('SELECT 1 FROM pg_database WHERE datname = $1', [name]);
      if (exists.rowCount === 0) await admin.query(`CREATE DATABASE ${pg.escapeIdentifier(name)}`);
    } catch (err) {
      // Two processes creating it at once: the loser sees duplicate_database, which is fine.
      if ((err as { code?: string }).code !== '42P04') throw err;
    }
  });
}

/** Drops the database named in the URL, if there is one, closing its connections (tests and the bench). */
export async function dropDatabase(databaseUrl: string): Promise<void> {
  await withServerAdmin(databaseUrl, async (admin, name) => {
    await admin.query(`DROP DATABASE IF EXISTS ${pg.escapeIdentifier(name)} WITH (FORCE)`);
  });
}

/** Applies every pending migration in one transaction, under node-pg-migrate's advisory lock. */
export async function migrateUp(databaseUrl: string, logger: Logger): Promise<string[]> {
  const applied = await runner({
    databaseUrl: connectionConfig(databaseUrl),
    dir: MIGRATIONS_DIR,
    direction: 'up',
    migrationsTable: 'pgmigrations',
    checkOrder: true,
    singleTransaction: true,
    advisoryLockMode: 'wait',
    log: (message) => logger.debug({ migration: message }, 'migrate'),
  });
  return applied.map((m) => m.name);
}
