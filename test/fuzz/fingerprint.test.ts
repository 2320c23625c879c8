import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../support/testApp.js';
import { insertOrg, insertUser } from '../support/factories.js';
import { insertActiveDomain } from '../support/domains.js';
import { newId } from '../../src/ids.js';
import { fingerprintOf, ownedTables } from './fingerprint.js';

let app: TestApp;
beforeAll(async () => {
  app = await startTestApp();
});
afterAll(async () => app?.close());

/** A user with an organisation holding one active domain; answers the domain's id. */
async function userWithDomain(): Promise<{ userId: string; domainId: string }> {
  const user = await insertUser(app.deps);
  const org = await insertOrg(app.deps, { owner: user });
  const name = await insertActiveDomain(app, { org, livemode: false });
  const { rows } = await app.deps.db.query<{ id: string }>('SELECT id FROM domains WHERE name = $1', [name]);
  return { userId: user.id, domainId: rows[0]!.id };
}

const insertNotice = (domainId: string) =>
  app.deps.db.query(`INSERT INTO domain_notices (id, domain_id, livemode, kind, event_id, facts) VALUES ($1, $2, false, 'fuzz', $3, '{}')`, [
    newId('ntc'),
    domainId,
    newId('evt'),
  ]);

describe("the fuzz's write check", () => {
  it("covers every table that can hold a user's rows, however many foreign keys away", async () => {
    const { owned, unowned } = await ownedTables(app.deps.db);
    // Tables with no user's or organisation's rows at all: the migrations' own, the price list, leak scans.
    expect(unowned).toEqual(['leak_scan_seen', 'pgmigrations', 'tld_prices']);
    expect(owned.map((t) => t.table)).toEqual(expect.arrayContaining(['users', 'domain_moves', 'dns_zones', 'domain_contacts', 'webhook_deliveries', 'domain_notices']));
  });

  it("sees a write on a table reached only through another (a domain's notice), and only the user's own", async () => {
    const { owned } = await ownedTables(app.deps.db);
    const [mine, theirs] = [await userWithDomain(), await userWithDomain()];
    const fingerprint = fingerprintOf(app.deps.db, owned, mine.userId);
    const before = await fingerprint();
    await insertNotice(theirs.domainId);
    expect(await fingerprint()).toBe(before);
    await insertNotice(mine.domainId);
    expect(await fingerprint()).not.toBe(before);
  });
});
