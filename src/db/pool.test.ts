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
});
