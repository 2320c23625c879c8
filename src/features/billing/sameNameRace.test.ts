import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../../../test/support/testApp.js';
import { customerFactory, SCOPES } from '../../../test/support/customers.js';
import { readJson, type MessageErrorBody } from '../../../test/support/http.js';
import { createKey, jsonHeaders } from '../../../test/support/actors.js';
import { FakeDnsimple, registrarEnv } from '../../../test/support/fakeDnsimple.js';
import { liveCustomers } from '../../../test/support/liveCustomers.js';

let dnsimple: FakeDnsimple;
let app: TestApp;
beforeAll(async () => {
  // Live names are held at a registry (a DNSimple-shaped one here); test names are not.
  dnsimple = await FakeDnsimple.start();
  app = await startTestApp({ worker: true, env: registrarEnv(dnsimple) });
});
afterAll(async () => {
  await app?.close();
  await dnsimple?.close();
});

/** The org's ledger rows that name an operation, and whether that operation exists. */
async function operationLedger(orgId: string) {
  const { rows } = await app.deps.db.query<{ type: string; operationExists: boolean }>(
    `SELECT t.type, EXISTS (SELECT 1 FROM operations o WHERE o.id = t.operation_id) AS "operationExists"
     FROM billing_transactions t WHERE t.org_id = $1 AND t.operation_id IS NOT NULL ORDER BY t.seq`,
    [orgId],
  );
  return rows;
}

async function codesOf(responses: Response[]) {
  return Promise.all(responses.map(async (res) => (res.status === 202 ? '202' : `${res.status} ${(await readJson<MessageErrorBody>(res)).code}`)));
}

describe('concurrent registrations of one name', () => {
  it('inside one org: one is accepted, the others are 409 DOMAIN_STATE_CONFLICT, and the ledger holds one reservation', { timeout: 60_000 }, async () => {
    const f = customerFactory(app);
    const c = await f.customer(50_000);
    const name = `contested-${Date.now()}.com`;
    const body = { name, years: 1, registrant_contact_id: c.contactId };
    const responses = await Promise.all(Array.from({ length: 8 }, (_, i) => f.register(c, body, `race-${i}-${name}`)));
    const codes = await codesOf(responses);
    expect(codes.filter((code) => code === '202')).toHaveLength(1);
    expect(codes.filter((code) => code !== '202')).toEqual(Array.from({ length: 7 }, () => '409 DOMAIN_STATE_CONFLICT'));
    expect(await operationLedger(c.org.id)).toEqual([{ type: 'reservation', operationExists: true }]);
    expect(await f.balance(c)).toMatchObject({ available: 50_000 - 1299, reserved: 1299 });
  });

  it('across orgs, live: the others are 409 DOMAIN_NOT_AVAILABLE and leave no ledger entry', { timeout: 60_000 }, async () => {
    const live = liveCustomers(app);
    const orgs = await Promise.all(Array.from({ length: 4 }, () => live.customer(5_000)));
    const name = `coveted-${Date.now()}.com`;
    const responses = await Promise.all(
      orgs.map((c, i) => live.post(c, `/api/v1/orgs/${c.org.id}/domains`, `coveted-${i}`, { name, years: 1, registrant_contact_id: c.contactId })),
    );
    const codes = await codesOf(responses);
    expect(codes.filter((code) => code === '202')).toHaveLength(1);
    expect(codes.filter((code) => code !== '202')).toEqual(Array.from({ length: 3 }, () => '409 DOMAIN_NOT_AVAILABLE'));
    const losers = orgs.filter((_, i) => codes[i] !== '202');
    expect(await Promise.all(losers.map((c) => operationLedger(c.org.id)))).toEqual([[], [], []]);
  });

  it('across orgs, test mode: each org holds its own test name, so no answer tells one org what another holds', { timeout: 60_000 }, async () => {
    const f = customerFactory(app);
    const orgs = await Promise.all(Array.from({ length: 4 }, () => f.customer(5_000)));
    const name = `sandboxed-${Date.now()}.com`;
    const responses = await Promise.all(orgs.map((c, i) => f.register(c, { name, years: 1, registrant_contact_id: c.contactId }, `sandboxed-${i}`)));
    expect(await codesOf(responses)).toEqual(['202', '202', '202', '202']);
    const ledgers = await Promise.all(orgs.map((c) => operationLedger(c.org.id)));
    expect(ledgers).toEqual(Array.from({ length: 4 }, () => [{ type: 'reservation', operationExists: true }]));
    const done = await Promise.all(orgs.map((c, i) => f.pollUntilFinished(c, responses[i]!.headers.get('location')!)));
    expect(done.map((op) => op.status)).toEqual(['succeeded', 'succeeded', 'succeeded', 'succeeded']);

    // A transfer into a fifth org, dry run and real, answers as for a name nobody holds.
    const fifth = await f.customer(5_000);
    const transfer = (dryRun: boolean) =>
      app.fetch(`/api/v1/orgs/${fifth.org.id}/domains/transfers`, {
        method: 'POST',
        headers: { ...jsonHeaders(fifth.key), ...(dryRun ? { 'dry-run': 'true' } : { 'idempotency-key': `in-${name}` }) },
        body: JSON.stringify({ name, auth_code: 'Xq7#Lp2-vK9m', registrant_contact_id: fifth.contactId }),
      });
    expect((await transfer(true)).status).toBe(200);
    const moved = await transfer(false);
    expect(moved.status).toBe(202);
    expect((await f.pollUntilFinished(fifth, moved.headers.get('location')!)).status).toBe('succeeded');
  });

  it('inside one org, from a key without a spending limit and one with: the second is 409, never a deadlock', { timeout: 60_000 }, async () => {
    // The first key's registration is written in one statement (the key lineage's lock, the balance
    // row's, then the name's); the limited key's takes the transaction, which must take them in that order.
    const f = customerFactory(app);
    const c = await f.customer(50_000, 'enterprise');
    const limited = await createKey(app, c.session, { name: 'limited', scopes: SCOPES, mode: 'test', monthly_spend_limit: 10_000 });
    const name = `ordered-${Date.now()}.com`;
    const body = { name, years: 1, registrant_contact_id: c.contactId };
    const holder = await app.deps.db.connect();
    const blockedBy = async (pids: number[]) => {
      const { rows } = await app.deps.db.query<{ pid: number }>('SELECT pid FROM pg_stat_activity WHERE pg_blocking_pids(pid) && $1::int[]', [pids]);
      return rows.map((row) => row.pid);
    };
    const waitFor = async (pids: number[], count: number) => {
      for (let i = 0; i < 500; i += 1) {
        const blocked = await blockedBy(pids);
        if (blocked.length >= count) return blocked;
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
      throw new Error(`fewer than ${count} requests waited on the balance row`);
    };
    try {
      // Both requests queue on the balance row, the unlimited key's first.
      await holder.query('BEGIN');
      const holderPid = (await holder.query<{ pid: number }>('SELECT pg_backend_pid() AS pid')).rows[0]!.pid;
      await holder.query('SELECT 1 FROM billing_balances WHERE org_id = $1 AND livemode = false FOR UPDATE', [c.org.id]);
      const unlimited = f.register(c, body, `ordered-unlimited-${name}`);
      const [first] = await waitFor([holderPid], 1);
      const limitedAnswer = f.register({ ...c, key: limited.key }, body, `ordered-limited-${name}`);
      await waitFor([holderPid, first!], 2);
      await holder.query('ROLLBACK');
      expect(await codesOf(await Promise.all([unlimited, limitedAnswer]))).toEqual(['202', '409 DOMAIN_STATE_CONFLICT']);
    } finally {
      holder.release();
    }
    expect(await operationLedger(c.org.id)).toEqual([{ type: 'reservation', operationExists: true }]);
  });

  it('a request that ends in 500 while writing its rows leaves no ledger entry and no hold', { timeout: 60_000 }, async () => {
    const f = customerFactory(app);
    const c = await f.customer(5_000);
    const name = `boom${Date.now()}.com`;
    // A database fault at the operation's insert, for this one name only.
    const fn = `fail_${name.replace(/\W/g, '_')}`;
    await app.deps.db.query(
      `CREATE FUNCTION ${fn}() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN
         IF NEW.domain = '${name}' THEN RAISE EXCEPTION 'injected fault'; END IF; RETURN NEW; END $$;
       CREATE TRIGGER ${fn} BEFORE INSERT ON operations FOR EACH ROW EXECUTE FUNCTION ${fn}();`,
    );
    try {
      const res = await f.register(c, { name, years: 1, registrant_contact_id: c.contactId }, `boom-${name}`);
      expect(res.status).toBe(500);
    } finally {
      await app.deps.db.query(`DROP TRIGGER ${fn} ON operations; DROP FUNCTION ${fn}();`);
    }
    expect(await operationLedger(c.org.id)).toEqual([]);
    expect(await f.balance(c)).toMatchObject({ available: 5_000, reserved: 0 });
    // The name is still free for the same org.
    expect((await f.register(c, { name, years: 1, registrant_contact_id: c.contactId }, `boom-again-${name}`)).status).toBe(202);
  });
});
