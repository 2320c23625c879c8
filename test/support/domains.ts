/**
 * Customers with domains, for the DNS tests: an org, keys, and an active domain, either through the
 * real register workflow (test mode, as src/flows/registerDomain/registerDomain.test.ts does it) or inserted
 * directly through the repository (a live domain: registering one would need a live registrar).
 * Customers, contacts and money are written straight to the database (factories.ts).
 */
import type { TestApp } from './testApp.js';
import { bearer, jsonHeaders, uniqueEmail } from './actors.js';
import { creditBalance, insertContact, insertKey, insertOrg, insertUser, sessionOf } from './factories.js';
import { readJson } from './http.js';
import { insertDomain, type DomainStatus } from '../../src/features/domains/domains.repository.js';
import { changeDomainStatus } from '../../src/features/domains/domainStatus.js';
import { newId } from '../../src/ids.js';
import { modeOf } from '../../src/db/modeScope.js';

export const DNS_SCOPES = ['dns:read', 'dns:write', 'domains:read', 'domains:write', 'contacts:write', 'billing:read', 'billing:write'];

export interface Customer {
  session: string;
  org: { id: string };
  /** Keys of the mode asked for, all with DNS_SCOPES. */
  keys: string[];
  key: string;
  email: string;
  livemode: boolean;
}

/** An org on the enterprise plan (so many writes in one test stay under the rate limits) with keys of one mode, written straight to the database. */
export async function dnsCustomer(app: TestApp, mode: 'live' | 'test', keyCount = 1): Promise<Customer> {
  const user = await insertUser(app.deps, uniqueEmail('dns'));
  const org = await insertOrg(app.deps, { owner: user, plan: 'enterprise' });
  const keys: string[] = [];
  for (let i = 0; i < keyCount; i += 1) keys.push((await insertKey(app.deps, { user, scopes: DNS_SCOPES, mode, name: `dns ${i}` })).key);
  return { session: await sessionOf(app.deps, user), org, keys, key: keys[0]!, email: user.email, livemode: mode === 'live' };
}

/** An active domain inserted through the repository (no registrar involved), with a contact of its own. */
export async function insertActiveDomain(
  app: TestApp,
  customer: Pick<Customer, 'org' | 'livemode'>,
  props: { name?: string; status?: DomainStatus; nameservers?: string[] } = {},
): Promise<string> {
  const mode = modeOf(customer.livemode);
  const name = props.name ?? `dns-${Date.now().toString(36)}-${Math.random().toString(36).slice(2, 8)}.com`;
  const contactId = await insertContact(app.deps, { orgId: customer.org.id, livemode: customer.livemode });
  const domain = await insertDomain(app.deps.db, mode, {
    id: newId('dom'),
    status: 'registering',
    orgId: customer.org.id,
    name,
    years: 1,
    autoRenew: false,
    nameservers: props.nameservers ?? ['ns1.example.net', 'ns2.example.net'],
    registrantContactId: contactId,
    adminContactId: null,
    techContactId: null,
  });
  const status = props.status ?? 'active';
  if (status !== 'registering') await changeDomainStatus({ db: app.deps.db, mode, domainId: domain.id, to: status });
  return name;
}

/** A test-mode domain registered through the real workflow (the app needs `worker: true`), polled until active. */
export async function registerTestDomain(app: TestApp, customer: Customer, props: { name?: string; nameservers?: string[] } = {}): Promise<string> {
  const name = props.name ?? `dns-${Date.now().toString(36)}-${Math.random().toString(36).slice(2, 8)}.com`;
  await creditBalance(app.deps, { orgId: customer.org.id, livemode: false, amount: 5_000 });
  const contactId = await insertContact(app.deps, { orgId: customer.org.id, livemode: false, fields: { email: customer.email } });
  const res = await app.fetch(`/api/v1/orgs/${customer.org.id}/domains`, {
    method: 'POST',
    headers: { ...jsonHeaders(customer.key), 'idempotency-key': `register-${name}` },
    body: JSON.stringify({ name, years: 1, registrant_contact_id: contactId, ...(props.nameservers ? { nameservers: props.nameservers } : {}) }),
  });
  if (res.status !== 202) throw new Error(`registration refused: ${res.status} ${await res.text()}`);
  const location = res.headers.get('location')!;
  // A plain loop rather than expect.poll: this runs in beforeAll hooks too.
  for (let i = 0; i < 100; i += 1) {
    const op = await readJson<{ status: string; error: unknown }>(await app.fetch(location, { headers: bearer(customer.key) }));
    if (op.status === 'succeeded') return name;
    if (op.status !== 'pending' && op.status !== 'running') throw new Error(`registration of ${name} ended ${op.status}: ${JSON.stringify(op.error)}`);
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  throw new Error(`registration of ${name} did not finish`);
}
