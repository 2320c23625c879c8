import os from 'node:os';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { startTestApp, type TestApp } from '../../../test/support/testApp.js';
import { bearer, createKey, createOrg, sessionToken, uniqueEmail } from '../../../test/support/actors.js';
import { readJson } from '../../../test/support/http.js';
import { runTs } from '../../../test/support/processes.js';
import { listAuditEventsForTarget } from '../../audit/auditEvents.js';

let app: TestApp;
beforeAll(async () => {
  app = await startTestApp();
});
afterAll(async () => app?.close());

/** `npm run billing:credit -- …` as an operator runs it: a separate process against the test database. */
async function credit(args: string[]): Promise<{ code: number | null; output: string }> {
  const proc = runTs('src/cli/billingCredit.ts', args, { DATABASE_URL: inject('databaseUrl'), LOG_LEVEL: 'silent' });
  const code = await proc.exited;
  return { code, output: proc.output() };
}

const balanceOf = async (token: string, orgId: string) =>
  readJson<{ available: number; reserved: number; livemode: boolean }>(await app.fetch(`/api/v1/orgs/${orgId}/billing/balance`, { headers: bearer(token) }));
const ledgerOf = async (token: string, orgId: string) =>
  (await readJson<{ data: { type: string; amount: number; description: string; livemode: boolean }[] }>(
    await app.fetch(`/api/v1/orgs/${orgId}/billing/transactions`, { headers: bearer(token) }),
  )).data;

describe('npm run billing:credit', () => {
  it('credits the live balance with a ledger entry naming the reason and an audit event naming the operator', async () => {
    const owner = await sessionToken(app, uniqueEmail('credited'));
    const org = await createOrg(app, owner);

    const run = await credit(['--org', org.id, '--amount', '5000', '--reason', 'bank transfer ref 4411', '--operator', 'alice-ops']);
    expect(run.output).toMatch(/Credited 5000 USD minor units to the live balance of org_\w+: 5000 available now\. Ledger entry txn_\w+/);
    expect(run.code).toBe(0);

    expect(await balanceOf(owner, org.id)).toEqual({ currency: 'USD', available: 5000, reserved: 0, livemode: true, spent_this_month: 0, monthly_spend_limit: null });
    expect(await ledgerOf(owner, org.id)).toMatchObject([{ type: 'top_up', amount: 5000, description: 'Operator credit: bank transfer ref 4411', livemode: true }]);
    const events = await listAuditEventsForTarget(app.deps.db, 'organization', org.id);
    expect(events.filter((e) => e.action === 'billing.operator_credit')).toEqual([
      expect.objectContaining({
        actorUserId: null,
        actorKeyId: null,
        orgId: org.id,
        data: expect.objectContaining({ operator: 'alice-ops', reason: 'bank transfer ref 4411', amount: 5000, livemode: true }),
      }),
    ]);
  });

  it('credits the test balance with --test, naming the OS user when no --operator is given', async () => {
    const owner = await sessionToken(app, uniqueEmail('credited-test'));
    const org = await createOrg(app, owner);
    const testKey = (await createKey(app, owner, { name: 'sandbox', scopes: ['billing:read'], mode: 'test' })).key;

    const run = await credit(['--org', org.id, '--amount', '250', '--reason', 'sandbox goodwill', '--test']);
    expect(run.code).toBe(0);
    expect(await balanceOf(testKey, org.id)).toMatchObject({ available: 250, livemode: false });
    expect(await balanceOf(owner, org.id)).toMatchObject({ available: 0, livemode: true });
    const events = await listAuditEventsForTarget(app.deps.db, 'organization', org.id);
    expect(events.find((e) => e.action === 'billing.operator_credit')?.data).toMatchObject({ operator: os.userInfo().username, livemode: false });
  });

  it('refuses an unknown org, a non-positive or fractional amount and a missing reason with exit code 1, crediting nothing', async () => {
    const owner = await sessionToken(app, uniqueEmail('refused'));
    const org = await createOrg(app, owner);
    const [noReason, negative, fraction, words, unknownOrg] = await Promise.all([
      credit(['--org', org.id, '--amount=0']),
      credit(['--org', org.id, '--amount=-5', '--reason', 'x']),
      credit(['--org', org.id, '--amount', '12.5', '--reason', 'x']),
      credit(['--org', org.id, '--amount', '1e3', '--reason', '   ']),
      credit(['--org', 'org_doesnotexist0000000000', '--amount', '100', '--reason', 'typo in the id']),
    ]);
    for (const run of [noReason, negative, fraction, words, unknownOrg]) {
      expect(run.code).toBe(1);
      expect(run.output).toMatch(/^Nothing was credited/);
      expect(run.output).not.toMatch(/at .*\.ts:\d+/);
    }
    expect(noReason.output).toMatch(/--amount: a positive whole number.*\n.*--reason: say why/);
    expect(negative.output).toContain('--amount');
    expect(fraction.output).toContain('"12.5"');
    expect(words.output).toMatch(/--amount[\s\S]*--reason/);
    expect(unknownOrg.output).toContain('No organisation with id org_doesnotexist0000000000');
    expect(await balanceOf(owner, org.id)).toMatchObject({ available: 0 });
    expect(await ledgerOf(owner, org.id)).toEqual([]);
  });
});
