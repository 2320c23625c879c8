import pg from 'pg';
import { describe, expect, inject, it } from 'vitest';
import { readdir } from 'node:fs/promises';
import { connectionConfig } from '../src/db/pool.js';
import { MIGRATIONS_DIR, migrateUp } from '../src/db/migrate.js';
import { createLogger } from '../src/logger.js';

describe('migrations', () => {
  it('applied every migration file to the fresh test database, and a second run applies nothing', async () => {
    const files = (await readdir(MIGRATIONS_DIR)).filter((f) => f.endsWith('.sql')).map((f) => f.replace(/\.sql$/, ''));
    const client = new pg.Client(connectionConfig(inject('databaseUrl')));
    await client.connect();
    try {
      const { rows } = await client.query<{ name: string }>('SELECT name FROM pgmigrations ORDER BY run_on, id');
      expect(rows.map((r) => r.name)).toEqual(files.sort());
    } finally {
      await client.end();
    }
    expect(await migrateUp(inject('databaseUrl'), createLogger({ logLevel: 'silent' }))).toEqual([]);
  });
});
