/**
 * One enterprise customer for the bench, written straight to the database (test/support/factories.ts):
 * an owner with a session, a test key and a live key with every scope, a contact and money in test
 * mode, a live domain whose records go to PowerDNS, and a test domain for synthetic records.
 */
import { insertContact, insertKey, insertOrg, insertUser, sessionOf, creditBalance } from '../../test/support/factories.js';
import { insertDomain } from '../../src/features/domains/domains.repository.js';
import { changeDomainStatus } from '../../src/features/domains/domainStatus.js';
import { SCOPES } from '../../src/auth/scopes.js';
import { newId, randomBase62 } from '../../src/ids.js';
import type { AppDeps } from '../../src/deps.js';
import { modeOf } from '../../src/db/modeScope.js';

export interface BenchCustomer {
  orgId: string;
  session: string;
  testKey: string;
  liveKey: string;
  testContactId: string;
  liveContactId: string;
  liveDomain: string;
  testDomain: string;
}

/** An active domain inserted straight to the database, with two name servers. */
export async function activeDomain(deps: AppDeps, props: { orgId: string; livemode: boolean; contactId: string }): Promise<string> {
  const name = `bench-${randomBase62(10).toLowerCase()}.com`;
  const mode = modeOf(props.livemode);
  const domain = await insertDomain(deps.db, mode, {
    id: newId('dom'),
    status: 'registering',
    orgId: props.orgId,
    name,
    years: 1,
    autoRenew: false,
    nameservers: ['ns1.example.net', 'ns2.example.net'],
    registrantContactId: props.contactId,
    adminContactId: null,
    techContactId: null,
  });
  await changeDomainStatus({ db: deps.db, mode, domainId: domain.id, to: 'active' });
  return name;
}

export async function benchCustomer(deps: AppDeps, label: string, balance = 1_000_000_000): Promise<BenchCustomer> {
  const user = await insertUser(deps, `bench-${label}-${randomBase62(6).toLowerCase()}@example.com`);
  const org = await insertOrg(deps, { owner: user, name: `Bench ${label}`, plan: 'enterprise' });
  const testKey = await insertKey(deps, { user, scopes: [...SCOPES], mode: 'test', name: 'bench test' });
  const liveKey = await insertKey(deps, { user, scopes: [...SCOPES], mode: 'live', name: 'bench live' });
  await creditBalance(deps, { orgId: org.id, livemode: false, amount: balance, by: user });
  const testContactId = await insertContact(deps, { orgId: org.id, livemode: false });
  const liveContactId = await insertContact(deps, { orgId: org.id, livemode: true });
  return {
    orgId: org.id,
    session: await sessionOf(deps, user),
    testKey: testKey.key,
    liveKey: liveKey.key,
    testContactId,
    liveContactId,
    liveDomain: await activeDomain(deps, { orgId: org.id, livemode: true, contactId: liveContactId }),
    testDomain: await activeDomain(deps, { orgId: org.id, livemode: false, contactId: testContactId }),
  };
}
