import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../support/testApp.js';
import { bearer, jsonHeaders } from '../support/actors.js';
import { readJson } from '../support/http.js';
import { dnsCustomer, insertActiveDomain, type Customer } from '../support/domains.js';
import { statementsOf } from '../support/statements.js';

// A process that dies after its handler committed but before the answer was stored leaves the key
// in flight; once the lease runs out the retry runs the handler again (src/http/idempotencyLease.ts).
// These tests put a key in exactly that state and check the second run finds the first one's effect.

let app: TestApp;
let customer: Customer;
let domain: string;

beforeAll(async () => {
  app = await startTestApp();
  customer = await dnsCustomer(app, 'test');
  domain = await insertActiveDomain(app, customer);
});
afterAll(async () => app?.close());

/** What a crash between the handler's commit and the stored answer leaves: the key in flight, its lease over. */
async function loseTheAnswer(key: string): Promise<void> {
  const { rowCount } = await app.deps.db.query(
    `UPDATE idempotency_keys
        SET state = 'in_flight', response_status = NULL, response_headers = NULL, response_body = NULL,
            locked_until = now() - interval '1 second'
      WHERE key = $1`,
    [key],
  );
  expect(rowCount).toBe(1);
}

const post = (path: string, key: string, body: unknown) =>
  app.fetch(`/api/v1/orgs/${customer.org.id}${path}`, {
    method: 'POST',
    headers: { ...jsonHeaders(customer.key), 'idempotency-key': key },
    body: JSON.stringify(body),
  });

describe('a request run again after its answer was lost', () => {
  it('credits a test-mode top-up once, answering the same ledger entry', async () => {
    const balance = async () =>
      (await readJson<{ available: number }>(await app.fetch(`/api/v1/orgs/${customer.org.id}/billing/balance`, { headers: bearer(customer.key) }))).available;
    const before = await balance();
    const first = await post('/billing/top-ups', 'top-up-lost-answer', { amount: 2500 });
    expect(first.status).toBe(201);
    const entry = await readJson<{ id: string }>(first);

    await loseTheAnswer('top-up-lost-answer');
    const again = await post('/billing/top-ups', 'top-up-lost-answer', { amount: 2500 });
    expect(again.status).toBe(201);
    expect(again.headers.get('idempotent-replayed')).toBeNull();
    expect((await readJson<{ id: string }>(again)).id).toBe(entry.id);
    expect(await balance()).toBe(before + 2500);
    const { rows } = await app.deps.db.query(`SELECT count(*)::int AS n FROM billing_transactions WHERE org_id = $1 AND type = 'top_up'`, [customer.org.id]);
    expect(rows[0]!.n).toBe(1);
  });

  it('credits a top-up anew when its key, expired, is reused for another amount', async () => {
    const first = await readJson<{ id: string }>(await post('/billing/top-ups', 'top-up-reused', { amount: 1000 }));
    await app.deps.db.query(`UPDATE idempotency_keys SET expires_at = now() - interval '1 second' WHERE key = 'top-up-reused'`);
    const again = await post('/billing/top-ups', 'top-up-reused', { amount: 1500 });
    expect(again.status).toBe(201);
    expect(await readJson<{ id: string; amount: number }>(again)).toMatchObject({ amount: 1500 });
    const { rows } = await app.deps.db.query(`SELECT id FROM billing_transactions WHERE org_id = $1 AND type = 'top_up' AND amount = 1500`, [customer.org.id]);
    expect(rows.map((r: { id: string }) => r.id)).not.toContain(first.id);
    expect(rows).toHaveLength(1);
  });

  it('creates a record once, answering the same record rather than 409 DUPLICATE', async () => {
    const record = { type: 'A', name: 'lost', content: '192.0.2.77', ttl: 300 };
    const first = await post(`/domains/${domain}/records`, 'record-lost-answer', record);
    expect(first.status).toBe(201);
    const created = await readJson<{ id: string; version: number }>(first);

    await loseTheAnswer('record-lost-answer');
    const again = await post(`/domains/${domain}/records`, 'record-lost-answer', record);
    expect(again.status).toBe(201);
    const answered = await readJson<{ id: string; version: number }>(again);
    expect(answered).toMatchObject({ id: created.id, version: created.version });
    expect(again.headers.get('location')).toBe(first.headers.get('location'));
    const list = await readJson<{ data: { id: string }[] }>(
      await app.fetch(`/api/v1/orgs/${customer.org.id}/domains/${domain}/records?name=lost`, { headers: bearer(customer.key) }),
    );
    expect(list.data.map((r) => r.id)).toEqual([created.id]);
  });

  it('answers a batch from its rows: its creates, its updates as they stand, its deletes', async () => {
    const seed = await post(`/domains/${domain}/records`, 'batch-seed', { type: 'TXT', name: 'batch', content: 'v=seed', ttl: 300 });
    const seeded = await readJson<{ id: string }>(seed);
    const body = {
      operations: [
        { op: 'create', record: { type: 'A', name: 'batch', content: '192.0.2.80', ttl: 300 } },
        { op: 'delete', id: seeded.id },
      ],
    };
    const first = await post(`/domains/${domain}/records/batch`, 'batch-lost-answer', body);
    expect(first.status).toBe(200);
    const firstBody = await readJson<unknown>(first);

    await loseTheAnswer('batch-lost-answer');
    const again = await post(`/domains/${domain}/records/batch`, 'batch-lost-answer', body);
    expect(again.status).toBe(200);
    expect(await readJson<unknown>(again)).toEqual(firstBody);
  });

  it('still applies a request whose key is new, with its own ids', async () => {
    const record = { type: 'A', name: 'fresh', content: '192.0.2.78', ttl: 300 };
    const one = await readJson<{ id: string }>(await post(`/domains/${domain}/records`, 'record-fresh-1', record));
    const two = await post(`/domains/${domain}/records`, 'record-fresh-2', { ...record, content: '192.0.2.79' });
    expect(two.status).toBe(201);
    expect((await readJson<{ id: string }>(two)).id).not.toBe(one.id);
  });
});

describe("an answer stored in the handler's own transaction", () => {
  it('commits a test-mode top-up and its answer together: nothing is written after that COMMIT, and the replay answers it', async () => {
    let first: Response | undefined;
    const statements = await statementsOf([app.deps.db, app.deps.claimsDb], async () => {
      first = await post('/billing/top-ups', 'top-up-one-commit', { amount: 700 });
    });
    expect(first!.status).toBe(201);
    const entry = await readJson<{ id: string }>(first!);
    // The answer was written inside the credit's transaction, before its COMMIT; nothing follows it.
    const commit = statements.lastIndexOf('COMMIT');
    expect(statements.slice(commit + 1), statements.join('\n')).toEqual([]);
    expect(statements.slice(0, commit).filter((text) => text.startsWith('UPDATE idempotency_keys SET state = \'completed\''))).toHaveLength(1);

    const replay = await post('/billing/top-ups', 'top-up-one-commit', { amount: 700 });
    expect(replay.status).toBe(201);
    expect(replay.headers.get('idempotent-replayed')).toBe('true');
    expect((await readJson<{ id: string }>(replay)).id).toBe(entry.id);
    const { rows } = await app.deps.db.query(`SELECT count(*)::int AS n FROM billing_transactions WHERE id = $1`, [entry.id]);
    expect(rows[0]!.n).toBe(1);
  });
});
