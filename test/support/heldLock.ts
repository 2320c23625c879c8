/**
 * A lock held in a transaction of the test's own, so that concurrent requests line up behind it in a
 * known order (PostgreSQL grants a row's lock to its waiters in turn); `release` lets them through.
 */
import { expect } from 'vitest';
import type pg from 'pg';
import type { Db } from '../../src/db/pool.js';

/**
 * Sessions waiting behind the holder: the first waits for its transaction, the next ones for the
 * row's lock, which the first waiter holds (or for a lock a waiter holds).
 */
const WAITERS = `
  WITH direct AS (SELECT pid FROM pg_stat_activity WHERE $1::int = ANY(pg_blocking_pids(pid)))
  SELECT count(*)::int AS n FROM pg_stat_activity
  WHERE pid IN (SELECT pid FROM direct) OR pg_blocking_pids(pid) && ARRAY(SELECT pid FROM direct)`;

export interface HeldLock {
  /** Until exactly `waiters` sessions wait behind the lock. */
  waitFor(waiters: number): Promise<void>;
  release(): Promise<void>;
}

/** Runs `sql` (which takes the lock, e.g. `SELECT … FOR UPDATE`) in a transaction left open. */
export async function holdLock(db: Db, sql: string, params: unknown[]): Promise<HeldLock> {
  const client: pg.PoolClient = await db.connect();
  await client.query('BEGIN');
  await client.query(sql, params);
  const holder = (await client.query<{ pid: number }>('SELECT pg_backend_pid() AS pid')).rows[0]!.pid;
  return {
    async waitFor(waiters) {
      await expect.poll(async () => (await db.query<{ n: number }>(WAITERS, [holder])).rows[0]!.n, { timeout: 15_000 }).toBe(waiters);
    },
    async release() {
      await client.query('ROLLBACK');
      client.release();
    },
  };
}
