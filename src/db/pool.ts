import os from 'node:os';
import pg from 'pg';
import type { Logger } from '../logger.js';

export type Db = pg.Pool;
/** Either the pool or a client inside a transaction: every repository function accepts both. */
export type Queryable = Pick<pg.Pool, 'query'> | pg.PoolClient;

/**
 * Connection settings for a URL. Without a user in the URL, libpq's rule applies: `PGUSER`,
 * else the operating-system user (node-postgres would otherwise need `USER` to be set).
 */
export function connectionConfig(databaseUrl: string): pg.ClientConfig {
  const url = new URL(databaseUrl);
  if (url.username === '') url.username = encodeURIComponent(process.env.PGUSER ?? os.userInfo().username);
  return { connectionString: url.toString() };
}

export function createPool(databaseUrl: string, logger: Logger): Db {
  const pool = new pg.Pool({ ...connectionConfig(databaseUrl), max: 10, connectionTimeoutMillis: 5_000 });
  // An idle client losing its connection must not crash the process; the next query reconnects.
  pool.on('error', (err) => logger.warn({ err }, 'idle PostgreSQL client error'));
  return pool;
}

/** Runs `work` in one transaction on one client; rolls back on any error. */
export async function withTransaction<T>(db: Db, work: (client: pg.PoolClient) => Promise<T>): Promise<T> {
  const client = await db.connect();
  try {
    await client.query('BEGIN');
    const result = await work(client);
    await client.query('COMMIT');
    return result;
  } catch (err) {
    await client.query('ROLLBACK').catch(() => undefined);
    throw err;
  } finally {
    client.release();
  }
}
