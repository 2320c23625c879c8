import pg from 'pg';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { connectionConfig } from '../../db/pool.js';
import { lockDnsNames, NAME_LOCKS_MAX } from './dnsRecords.repository.js';

/**
 * The locks record edits take: per name for ordinary edits (which do not wait for each other on
 * other names), the whole domain for one of more than NAME_LOCKS_MAX names (which every other edit
 * of the domain waits for, and which waits for them). Observed through pg_locks, not timing.
 */
const clients: pg.Client[] = [];
/** Each session's backend pid, read before any of them waits (a waiting client runs no other query). */
const pids = new Map<pg.Client, number>();
beforeAll(async () => {
  for (let i = 0; i < 3; i += 1) {
    const client = new pg.Client(connectionConfig(inject('databaseUrl')));
    await client.connect();
    clients.push(client);
    pids.set(client, (await client.query<{ pid: number }>('SELECT pg_backend_pid() AS pid')).rows[0]!.pid);
  }
});
afterAll(async () => {
  for (const client of clients) await client.end();
});

const pidOf = (client: pg.Client) => pids.get(client)!;

/** Resolves once the session waits for an advisory lock (an observable end, not a sleep). */
async function waitsForLock(observer: pg.Client, pid: number): Promise<void> {
  for (let i = 0; i < 500; i += 1) {
    const { rows } = await observer.query(`SELECT 1 FROM pg_locks WHERE pid = $1 AND locktype = 'advisory' AND NOT granted`, [pid]);
    if (rows.length > 0) return;
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  throw new Error(`session ${pid} never waited for a lock`);
}

/** How many advisory locks each session holds (granted), in the order of `pids`. */
async function grantedLocks(observer: pg.Client, pids: number[]): Promise<number[]> {
  const { rows } = await observer.query<{ pid: number; n: number }>(
    `SELECT pid, count(*)::int AS n FROM pg_locks WHERE pid = ANY($1) AND locktype = 'advisory' AND granted GROUP BY pid`,
    [pids],
  );
  return pids.map((pid) => rows.find((r) => r.pid === pid)?.n ?? 0);
}

const manyNames = Array.from({ length: NAME_LOCKS_MAX + 1 }, (_, i) => `h${i}`);

describe('DNS record locks', () => {
  it('a large edit holds one domain lock, not one per name, and a small edit of the domain waits for it', async () => {
    const [big, small, observer] = clients as [pg.Client, pg.Client, pg.Client];
    await big.query('BEGIN');
    await lockDnsNames(big, 'dom_locks_1', manyNames);
    const { rows } = await observer.query<{ n: number }>(`SELECT count(*)::int AS n FROM pg_locks WHERE pid = $1 AND locktype = 'advisory'`, [pidOf(big)]);
    expect(rows[0]!.n).toBe(1);

    await small.query('BEGIN');
    let smallLocked = false;
    const smallDone = lockDnsNames(small, 'dom_locks_1', ['www']).then(() => (smallLocked = true));
    await waitsForLock(observer, pidOf(small));
    expect(smallLocked).toBe(false);
    await big.query('COMMIT');
    await smallDone;
    await small.query('COMMIT');
  });

  it('a large edit waits for a small edit under way; small edits of other names do not wait for each other', async () => {
    const [small, other, big] = clients as [pg.Client, pg.Client, pg.Client];
    await small.query('BEGIN');
    await lockDnsNames(small, 'dom_locks_2', ['www']);
    await other.query('BEGIN');
    await lockDnsNames(other, 'dom_locks_2', ['mail']);
    // Both hold their locks at once (the domain's, shared, and their name's): the second did not wait.
    expect(await grantedLocks(big, [pidOf(small), pidOf(other)])).toEqual([2, 2]);
    await other.query('COMMIT');

    const observer = other;
    await big.query('BEGIN');
    let bigLocked = false;
    const bigDone = lockDnsNames(big, 'dom_locks_2', manyNames).then(() => (bigLocked = true));
    await waitsForLock(observer, pidOf(big));
    expect(bigLocked).toBe(false);
    await small.query('COMMIT');
    await bigDone;
    expect(await grantedLocks(observer, [pidOf(big)])).toEqual([1]);
    await big.query('COMMIT');
  });
});
