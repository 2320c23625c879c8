/**
 * What a registration's 202 costs in PostgreSQL statements, each one a round trip the client waits
 * on (docs/bench.md): pinned, so a statement added on this path is seen here rather than in the bench.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../../../test/support/testApp.js';
import { customerFactory } from '../../../test/support/customers.js';
import { insertContact } from '../../../test/support/factories.js';
import { readJson } from '../../../test/support/http.js';
import { statementsOf } from '../../../test/support/statements.js';

/**
 * From the idempotency claim on (what runs before it, authentication and the organisation's
 * membership, is counted by its own layers): the claim, the registration's one read, the one
 * statement that reserves the price and writes the domain with its contacts and the operation
 * (billing's reserve with the rows of reservedOperation.repository.ts), and the stored answer.
 */
const STATEMENTS_OF_A_202 = 4;
const CLAIM = 'INSERT INTO idempotency_keys';

let app: TestApp;
// No worker: its activities share the app's pool, and every statement counted here must be the request's.
beforeAll(async () => {
  app = await startTestApp();
});
afterAll(async () => app?.close());

describe("a registration's 202", () => {
  it(`takes at most ${STATEMENTS_OF_A_202} PostgreSQL statements from its idempotency claim on, however many contacts it names`, async () => {
    const f = customerFactory(app);
    const c = await f.customer(50_000, 'enterprise');
    const admin = await insertContact(app.deps, { orgId: c.org.id, livemode: false });
    // Warms what the app caches for every caller (the price table), as any request after the first finds it.
    const warm = `round-trips-warm-${Date.now()}.com`;
    expect((await f.register(c, { name: warm, years: 1, registrant_contact_id: c.contactId }, `reg-${warm}`)).status).toBe(202);

    for (const contacts of [{}, { admin_contact_id: admin, tech_contact_id: admin }]) {
      const name = `round-trips-${Date.now()}-${Object.keys(contacts).length}.com`;
      let status = 0;
      const statements = await statementsOf([app.deps.db, app.deps.claimsDb], async () => {
        const res = await f.register(c, { name, years: 1, registrant_contact_id: c.contactId, ...contacts }, `reg-${name}`);
        status = res.status;
        await readJson(res);
      });
      expect(status).toBe(202);
      const fromClaim = statements.slice(statements.findIndex((text) => text.startsWith(CLAIM)));
      expect(fromClaim[0], statements.join('\n')).toMatch(/^INSERT INTO idempotency_keys/);
      expect(fromClaim.length, fromClaim.join('\n')).toBeLessThanOrEqual(STATEMENTS_OF_A_202);
    }
  });
});
