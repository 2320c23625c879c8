import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectionConfig } from '../../db/pool.js';
import { migrateUp } from '../../db/migrate.js';
import { createLogger } from '../../logger.js';
import { createOwnDatabase } from '../../../test/support/ownDatabase.js';

// Events written before events knew their domain, and endpoints subscribed before batches became one event.
let database: Awaited<ReturnType<typeof createOwnDatabase>>;
let db: pg.Client;
beforeAll(async () => {
  database = await createOwnDatabase({ before: '1765210000000' });
  db = new pg.Client(connectionConfig(database.url));
  await db.connect();
});
afterAll(async () => {
  await db?.end();
  await database?.drop();
});

const event = (id: string, type: string, object: Record<string, unknown>) =>
  db.query(`INSERT INTO events (id, org_id, livemode, type, data) VALUES ($1, 'org_m', false, $2, $3)`, [id, type, JSON.stringify({ object })]);

describe('the event domains migration', () => {
  it('gives older events the domain their object names (a DNS record’s from its domain, while it is there) and record subscribers dns_zone.changed', async () => {
    await db.query(`INSERT INTO organizations (id, name) VALUES ('org_m', 'M')`);
    await db.query(
      `INSERT INTO domains (id, org_id, livemode, name, status, years, registrant_contact_id) VALUES ('dom_m', 'org_m', false, 'kept.example', 'active', 1, 'ct_m')`,
    );
    await db.query(`INSERT INTO dns_records (id, domain_id, org_id, livemode, type, name, content) VALUES ('rec_kept', 'dom_m', 'org_m', false, 'TXT', 'www', 'x')`);
    await event('evt_op', 'operation.succeeded', { id: 'op_1', domain: 'op.example' });
    await event('evt_dom', 'domain.expiring', { id: 'dom_1', name: 'expiring.example' });
    await event('evt_move', 'domain.moved_in', { id: 'dmv_1', domain: 'moved.example' });
    await event('evt_dnssec', 'dnssec.enabled', { domain: 'signed.example' });
    await event('evt_rec', 'dns_record.updated', { id: 'rec_kept', name: 'www' });
    await event('evt_gone', 'dns_record.deleted', { id: 'rec_gone', name: 'old' });
    await event('evt_ping', 'ping', { id: 'we_1' });
    const endpoint = (id: string, events: string[]) =>
      db.query(`INSERT INTO webhook_endpoints (id, org_id, livemode, url, events, secrets) VALUES ($1, 'org_m', false, 'https://hooks.example/x', $2, '{}')`, [id, events]);
    await endpoint('we_records', ['dns_record.created', 'operation.succeeded']);
    await endpoint('we_all', ['*']);
    await endpoint('we_ops', ['operation.failed']);

    await migrateUp(database.url, createLogger({ logLevel: 'warn' }));

    const { rows } = await db.query<{ id: string; domain: string | null }>('SELECT id, domain FROM events ORDER BY id');
    expect(Object.fromEntries(rows.map((r) => [r.id, r.domain]))).toEqual({
      evt_op: 'op.example',
      evt_dom: 'expiring.example',
      evt_move: 'moved.example',
      evt_dnssec: 'signed.example',
      evt_rec: 'kept.example',
      // About some domain no longer known: hidden from keys restricted to some domains.
      evt_gone: '',
      evt_ping: null,
    });
    const endpoints = await db.query<{ id: string; events: string[] }>('SELECT id, events FROM webhook_endpoints ORDER BY id');
    expect(endpoints.rows).toEqual([
      { id: 'we_all', events: ['*'] },
      { id: 'we_ops', events: ['operation.failed'] },
      { id: 'we_records', events: ['dns_record.created', 'operation.succeeded', 'dns_zone.changed'] },
    ]);
  });
});
