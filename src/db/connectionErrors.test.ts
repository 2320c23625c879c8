import pg from 'pg';
import { expect, inject, it } from 'vitest';
import { isConnectionFailure } from './connectionErrors.js';
import { connectionConfig } from './pool.js';

it('takes a write refused as read-only (a standby reached during a failover) for the database being away, not for a bug (docs/operations.md, Production topology)', async () => {
  const client = new pg.Client(connectionConfig(inject('databaseUrl')));
  await client.connect();
  try {
    await client.query('BEGIN READ ONLY');
    const refused = await client.query('CREATE TABLE read_only_probe (id int)').catch((err: unknown) => err);
    await client.query('ROLLBACK');
    expect((refused as { code?: string }).code).toBe('25006');
    expect(isConnectionFailure(refused)).toBe(true);
    const syntax = await client.query('SELEC 1').catch((err: unknown) => err);
    expect(isConnectionFailure(syntax)).toBe(false);
  } finally {
    await client.end();
  }
});
