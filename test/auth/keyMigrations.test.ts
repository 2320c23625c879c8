import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectionConfig } from '../../src/db/pool.js';
import { migrateUp } from '../../src/db/migrate.js';
import { createLogger } from '../../src/logger.js';
import { createOwnDatabase } from '../support/ownDatabase.js';

// Keys made before the keys' migrations: their lineage and the organisations they acted in are filled in.
let database: Awaited<ReturnType<typeof createOwnDatabase>>;
let db: pg.Client;
beforeAll(async () => {
  database = await createOwnDatabase({ before: '1763803200000' });
  db = new pg.Client(connectionConfig(database.url));
  await db.connect();
});
afterAll(async () => {
  await db?.end();
  await database?.drop();
});

async function insertKey(id: string, userId: string): Promise<void> {
  await db.query(
    `INSERT INTO api_keys (id, user_id, name, scopes, mode, prefix, secret_hash, status) VALUES ($1, $2, $1, '{}', 'live', 'svc_live_abcd', $3, 'deleted')`,
    [id, userId, Buffer.from(id)],
  );
}

const created = (keyId: string, by: string | null) =>
  db.query(`INSERT INTO audit_events (id, action, actor_user_id, actor_key_id, target_type, target_id) VALUES ($1, 'api_key.created', 'usr_1', $2, 'api_key', $3)`, [
    `evt_${keyId}`,
    by,
    keyId,
  ]);

describe('the keys’ migrations', () => {
  it('derive each older key’s lineage from its creation’s audit event, and where it acted from the audit log and the ledger', async () => {
    await db.query(`INSERT INTO users (id, subject, email) VALUES ('usr_1', 'sub-1', 'ada@example.com')`);
    await db.query(`INSERT INTO organizations (id, name) VALUES ('org_a', 'A'), ('org_b', 'B'), ('org_c', 'C')`);
    for (const id of ['key_root', 'key_child', 'key_grandchild', 'key_alone']) await insertKey(id, 'usr_1');
    await created('key_root', null);
    await created('key_child', 'key_root');
    await created('key_grandchild', 'key_child');
    await db.query(`INSERT INTO audit_events (id, action, actor_user_id, actor_key_id, org_id, target_type, target_id) VALUES ('evt_contact', 'contact.created', 'usr_1', 'key_child', 'org_a', 'contact', 'ct_1')`);
    await db.query(`INSERT INTO billing_balances (org_id, livemode, available) VALUES ('org_b', true, 1000)`);
    await db.query(
      `INSERT INTO billing_reservations (operation_id, org_id, livemode, amount, description, api_key_id) VALUES ('op_1', 'org_b', true, 100, 'Registration', 'key_grandchild')`,
    );
    const full = { id: 'key_root', name: 'ci', prefix: 'svc_live_abcd', allowed_ips: ['10.0.0.0/8'], monthly_spend_limit: 5 };
    await db.query(`INSERT INTO events (id, org_id, livemode, type, data) VALUES ('evt_revoked', 'org_c', true, 'api_key.revoked', $1)`, [JSON.stringify({ object: full })]);

    await migrateUp(database.url, createLogger({ logLevel: 'warn' }));

    const keys = await db.query<{ id: string; parent: string | null; lineage: string[] }>(
      `SELECT id, parent_key_id AS parent, lineage FROM api_keys ORDER BY id`,
    );
    expect(keys.rows).toEqual([
      { id: 'key_alone', parent: null, lineage: ['key_alone'] },
      { id: 'key_child', parent: 'key_root', lineage: ['key_root', 'key_child'] },
      { id: 'key_grandchild', parent: 'key_child', lineage: ['key_root', 'key_child', 'key_grandchild'] },
      { id: 'key_root', parent: null, lineage: ['key_root'] },
    ]);
    const acted = await db.query(`SELECT api_key_id, org_id FROM api_key_organizations ORDER BY api_key_id`);
    expect(acted.rows).toEqual([
      { api_key_id: 'key_child', org_id: 'org_a' },
      { api_key_id: 'key_grandchild', org_id: 'org_b' },
    ]);
    const event = await db.query(`SELECT data FROM events WHERE id = 'evt_revoked'`);
    expect(event.rows[0].data).toEqual({ object: { id: 'key_root', name: 'ci', prefix: 'svc_live_abcd' } });
  });
});
