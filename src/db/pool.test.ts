import { afterAll, describe, expect, inject, it } from 'vitest';
import { createPool } from './pool.js';
import { createLogger } from '../logger.js';

const warnings: string[] = [];
const logger = createLogger({ logLevel: 'warn' });
logger.warn = ((_obj: unknown, message?: string) => void warnings.push(message ?? ''));
const pool = createPool(inject('databaseUrl'), logger);
afterAll(async () => pool.end());

describe('the PostgreSQL pool', () => {
  it('outlives a checked-out connection that PostgreSQL ends between its queries, and keeps serving', async () => {
    const client = await pool.connect();
    const { rows } = await client.query<{ pid: number }>('SELECT pg_backend_pid() AS pid');
    const ended = new Promise<void>((resolve) => client.once('end', () => resolve()));
    // Another connection ends this one, as a restart or `pg_terminate_backend` would. Without a
    // listener of its own the client's 'error' event would end this process (vitest reports it).
    await pool.query('SELECT pg_terminate_backend($1)', [rows[0]!.pid]);
    await ended;
    expect(warnings).toContain('PostgreSQL client error');
    client.release(true);
    expect((await pool.query<{ one: number }>('SELECT 1 AS one')).rows[0]!.one).toBe(1);
  });

  it('names its connections to PostgreSQL, so an operator can tell ours and the claim pool apart in pg_stat_activity', async () => {
    const claims = createPool(inject('databaseUrl'), logger, 'claims');
    try {
      const names = await Promise.all(
        [pool, claims].map(async (each) => {
          const { rows } = await each.query<{ name: string }>('SELECT application_name AS name FROM pg_stat_activity WHERE pid = pg_backend_pid()');
          return rows[0]!.name;
        }),
      );
      expect(names).toEqual(['domain-service', 'domain-service claims']);
    } finally {
      await claims.end();
    }
  });

  it('serves a burst after a quiet 11 s on the connections the burst before opened, where node-postgres alone closes them after 10 s', { timeout: 30_000 }, async () => {
    // Ten statements at once take ten connections; each names the backend that ran it.
    const burst = async () => {
      const answers = await Promise.all(Array.from({ length: 10 }, () => pool.query<{ pid: number }>('SELECT pg_backend_pid() AS pid, pg_sleep(0.05)')));
      return new Set(answers.map(({ rows }) => rows[0]!.pid));
    };
    const first = await burst();
    expect(first.size).toBe(10);
    await new Promise((resolve) => setTimeout(resolve, 11_000));
    const second = await burst();
    expect([...second].filter((pid) => !first.has(pid)), 'backends started for the second burst').toEqual([]);
  });
});
