/**
 * A batch or a zone import writes its records, its audit entries and its one event in a statement
 * each, however many records it changes (applyRecordChanges.ts, writeRows): a 1,200-record import
 * was three statements of records and three of audit entries (500 rows each), and its event two (the
 * row and its notification). Records made in one statement are answered as a read of them shows them.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../../../test/support/testApp.js';
import { dnsCustomer, insertActiveDomain, type Customer } from '../../../test/support/domains.js';
import { jsonHeaders } from '../../../test/support/actors.js';
import { statementsOf } from '../../../test/support/statements.js';

let app: TestApp;
let c: Customer;
beforeAll(async () => {
  app = await startTestApp();
  c = await dnsCustomer(app, 'test');
});
afterAll(async () => app?.close());

const testMode = { 'x-mode': 'test' };
const RECORDS = 1_200;

/** How many statements `work` sends that write rows, by kind and table (`insert events`); the notifications sent apart; every statement. */
async function writesOf(work: () => Promise<void>): Promise<{ writes: Record<string, number>; notifies: number; all: number }> {
  const sent = await statementsOf([app.deps.db, app.deps.claimsDb], work);
  const writes: Record<string, number> = {};
  for (const text of sent) {
    const write = /^(?:WITH inserted AS \( )?(INSERT|UPDATE|DELETE)(?: INTO| FROM)? (\w+)/.exec(text);
    const key = write && `${write[1]!.toLowerCase()} ${write[2]}`;
    if (key) writes[key] = (writes[key] ?? 0) + 1;
  }
  return { writes, notifies: sent.filter((text) => text.startsWith('SELECT pg_notify')).length, all: sent.length };
}

async function eventsOf(domain: string): Promise<{ type: string; created: number }[]> {
  const { rows } = await app.deps.db.query<{ type: string; created: number }>(
    `SELECT type, jsonb_array_length(data->'object'->'created') AS created FROM events WHERE org_id = $1 AND domain = $2 ORDER BY created_at, id`,
    [c.org.id, domain],
  );
  return rows;
}

describe('the writes of a request that changes many records', () => {
  it('a zone import: its records in one statement, its audit in one, its one dns_zone.changed in one', { timeout: 60_000 }, async () => {
    const domain = await insertActiveDomain(app, c);
    const text = Array.from({ length: RECORDS }, (_, i) => `host${i} 300 IN A 192.0.2.${i % 250}`).join('\n');
    let status = 0;
    const { writes, notifies, all } = await writesOf(async () => {
      const res = await app.fetch(`/api/v1/orgs/${c.org.id}/domains/${domain}/zone`, {
        method: 'POST',
        headers: { authorization: `Bearer ${c.key}`, 'content-type': 'text/dns', ...testMode },
        body: text,
      });
      status = res.status;
      await res.text();
    });
    expect(status).toBe(200);
    expect(writes).toMatchObject({ 'insert dns_records': 1, 'insert audit_events': 1, 'insert events': 1 });
    expect(notifies).toBe(0);
    // A few statements in all, not some per record: the auth, the budgets, the locks, the reads and these.
    expect(all).toBeLessThan(30);
    expect(await eventsOf(domain)).toEqual([{ type: 'dns_zone.changed', created: 100 }]);
    const { rows } = await app.deps.db.query<{ n: number }>(
      `SELECT count(*)::int AS n FROM audit_events WHERE org_id = $1 AND action = 'dns_record.created' AND data->>'domain' = $2`,
      [c.org.id, domain],
    );
    expect(rows[0]!.n).toBe(RECORDS);
  });

  it('a batch: one statement of records, one of audit, one dns_zone.changed; its records answered as they are read', async () => {
    const domain = await insertActiveDomain(app, c);
    const operations = Array.from({ length: 100 }, (_, i) => ({ op: 'create', record: { type: 'A', name: `b${i}`, content: '192.0.2.7', ttl: 300 } }));
    let results: { op: string; record: { id: string } }[] = [];
    const { writes, notifies } = await writesOf(async () => {
      const res = await app.fetch(`/api/v1/orgs/${c.org.id}/domains/${domain}/records/batch`, {
        method: 'POST',
        headers: { ...jsonHeaders(c.key), ...testMode },
        body: JSON.stringify({ operations }),
      });
      expect(res.status).toBe(200);
      results = ((await res.json()) as { results: typeof results }).results;
    });
    expect(writes).toMatchObject({ 'insert dns_records': 1, 'insert audit_events': 1, 'insert events': 1 });
    expect(notifies).toBe(0);
    expect(await eventsOf(domain)).toEqual([{ type: 'dns_zone.changed', created: 100 }]);
    for (const result of [results[0]!, results.at(-1)!]) {
      const read = await app.fetch(`/api/v1/orgs/${c.org.id}/domains/${domain}/records/${result.record.id}`, { headers: { ...jsonHeaders(c.key), ...testMode } });
      expect(await read.json()).toEqual(result.record);
    }

    const ids = results.map((r) => r.record.id);
    const edits = [
      ...ids.slice(0, 60).map((id, i) => ({ op: 'update', id, changes: { content: `198.51.100.${i}` } })),
      ...ids.slice(60).map((id) => ({ op: 'delete', id })),
    ];
    let edited: { op: string; record?: { id: string; version: number; content: string } }[] = [];
    const second = await writesOf(async () => {
      const res = await app.fetch(`/api/v1/orgs/${c.org.id}/domains/${domain}/records/batch`, {
        method: 'POST',
        headers: { ...jsonHeaders(c.key), ...testMode },
        body: JSON.stringify({ operations: edits }),
      });
      expect(res.status).toBe(200);
      edited = ((await res.json()) as { results: typeof edited }).results;
    });
    expect(second.writes).toEqual({ 'update dns_records': 1, 'delete dns_records': 1, 'insert audit_events': 1, 'insert events': 1 });
    expect(edited.slice(0, 60).map((r) => [r.record!.id, r.record!.version, r.record!.content])).toEqual(ids.slice(0, 60).map((id, i) => [id, 2, `198.51.100.${i}`]));
    const read = await app.fetch(`/api/v1/orgs/${c.org.id}/domains/${domain}/records/${ids[59]}`, { headers: { ...jsonHeaders(c.key), ...testMode } });
    expect(await read.json()).toEqual(edited[59]!.record);
    expect((await eventsOf(domain)).map((e) => e.type)).toEqual(['dns_zone.changed', 'dns_zone.changed']);
  });
});
