import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../support/testApp.js';
import { customerFactory } from '../support/customers.js';
import { readJson, type MessageErrorBody } from '../support/http.js';

let app: TestApp;
beforeAll(async () => {
  app = await startTestApp({ worker: true });
});
afterAll(async () => app?.close());

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

  it('across orgs: the others are 409 DOMAIN_NOT_AVAILABLE and leave no ledger entry', { timeout: 60_000 }, async () => {
    const f = customerFactory(app);
    const orgs = await Promise.all(Array.from({ length: 4 }, () => f.customer(5_000)));
    const name = `coveted-${Date.now()}.com`;
    const responses = await Promise.all(orgs.map((c, i) => f.register(c, { name, years: 1, registrant_contact_id: c.contactId }, `coveted-${i}`)));
    const codes = await codesOf(responses);
    expect(codes.filter((code) => code === '202')).toHaveLength(1);
    expect(codes.filter((code) => code !== '202')).toEqual(Array.from({ length: 3 }, () => '409 DOMAIN_NOT_AVAILABLE'));
    const ledgers = await Promise.all(orgs.map((c) => operationLedger(c.org.id)));
    expect(ledgers.flat()).toEqual([{ type: 'reservation', operationExists: true }]);
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
