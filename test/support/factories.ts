/**
 * Test customers written straight to the database (as Outline's server/test/factories.ts does), for
 * tests about something else than signing up: a user, an organisation with its owner, an API key
 * whose secret the api accepts, a contact, money, a domain, in a few milliseconds and no HTTP call.
 * Tests of the routes that create these (orgs, keys, contacts, top-ups) keep using HTTP (actors.ts).
 */
import type { TestApp } from './testApp.js';
import { uniqueEmail } from './actors.js';
import { upsertUserBySubject } from '../../src/auth/users.js';
import { insertOrganization, type Plan } from '../../src/auth/organizations.js';
import { insertMembership, type OrgRole } from '../../src/auth/memberships.js';
import { insertApiKey } from '../../src/auth/apiKeys.js';
import { insertContact as insertContactRow, type ContactFields } from '../../src/features/contacts/contacts.repository.js';
import { generateApiKey, hashApiKey, type KeyMode } from '../../src/auth/apiKeyFormat.js';
import { reserve, topUp } from '../../src/features/billing/ledger.js';
import { insertDomain } from '../../src/features/domains/domains.repository.js';
import { insertOperation, WORKFLOW_INPUT_PURPOSE, type Operation } from '../../src/features/domains/operations.repository.js';
import { sealJson } from '../../src/db/sealedJson.js';
import { withTransaction } from '../../src/db/pool.js';
import { derivedId, newId, randomBase62 } from '../../src/ids.js';
import type { RegisterDomainInput } from '../../src/features/domains/operations.contract.js';
import { modeOf } from '../../src/db/modeScope.js';

type Deps = Pick<TestApp['deps'], 'db' | 'keyHashSecret' | 'keyMisses' | 'devIdentity' | 'payloadKeys'>;

export interface FactoryUser {
  id: string;
  email: string;
}

/** A user as a first sign-in through the development identity provider makes it (same subject). */
export async function insertUser(deps: Pick<Deps, 'db'>, email = uniqueEmail('user')): Promise<FactoryUser> {
  const user = await upsertUserBySubject(deps.db, { subject: `dev|${email.toLowerCase()}`, email, name: email.split('@')[0]! });
  return { id: user.id, email };
}

/** A session token of that user (no request made). */
export function sessionOf(deps: Pick<Deps, 'devIdentity'>, user: FactoryUser): Promise<string> {
  return deps.devIdentity!.issueToken({ email: user.email });
}

/** An organisation with `owner` as its owner. */
export async function insertOrg(deps: Pick<Deps, 'db'>, props: { owner: FactoryUser; name?: string; plan?: Plan }): Promise<{ id: string; name: string }> {
  const org = await insertOrganization(deps.db, { id: newId('org'), name: props.name ?? 'Acme' });
  await insertMembership(deps.db, { orgId: org.id, userId: props.owner.id, role: 'owner' });
  if (props.plan && props.plan !== 'free') await deps.db.query('UPDATE organizations SET plan = $2 WHERE id = $1', [org.id, props.plan]);
  return { id: org.id, name: org.name };
}

export async function insertMember(deps: Pick<Deps, 'db'>, props: { orgId: string; user: FactoryUser; role: OrgRole }): Promise<void> {
  await insertMembership(deps.db, { orgId: props.orgId, userId: props.user.id, role: props.role });
}

/** An API key of `user`, and its secret as the api shows it once: usable as a Bearer token at once. */
export async function insertKey(
  deps: Pick<Deps, 'db' | 'keyHashSecret' | 'keyMisses'>,
  props: { user: FactoryUser; scopes: string[]; mode: KeyMode; name?: string },
): Promise<{ id: string; key: string }> {
  const { key, prefix } = generateApiKey(props.mode);
  const secretHash = hashApiKey(deps.keyHashSecret, key);
  const record = await insertApiKey(deps.db, { id: newId('key'), userId: props.user.id, name: props.name ?? 'factory key', scopes: props.scopes, mode: props.mode, prefix, secretHash });
  // As createApiKey does: no api process may answer the new key from a remembered miss.
  await deps.keyMisses.created(secretHash.toString('hex'));
  return { id: record.id, key };
}

export const ADA_LOVELACE: ContactFields = {
  firstName: 'Ada',
  lastName: 'Lovelace',
  organization: null,
  email: 'ada@example.com',
  phone: '+442071838750',
  address1: '1 High St',
  address2: null,
  city: 'London',
  state: null,
  postalCode: 'EC1A 1BB',
  country: 'GB',
};

/** A contact of the organisation in that mode; Ada Lovelace in London unless `fields` say otherwise. */
export async function insertContact(deps: Pick<Deps, 'db'>, props: { orgId: string; livemode: boolean; fields?: Partial<ContactFields> }): Promise<string> {
  const contact = await insertContactRow(deps.db, modeOf(props.livemode), { id: newId('ct'), orgId: props.orgId, fields: { ...ADA_LOVELACE, ...props.fields } });
  return contact.id;
}

/** Money on the organisation's balance of that mode: one `top_up` ledger entry, as a top-up writes. */
export async function creditBalance(deps: Pick<Deps, 'db'>, props: { orgId: string; livemode: boolean; amount: number; by?: FactoryUser }): Promise<void> {
  await topUp({ db: deps.db, orgId: props.orgId, livemode: props.livemode, amount: props.amount, actor: { actorUserId: props.by?.id ?? null, actorKeyId: null }, requestId: null });
}

export interface FactoryCustomer {
  user: FactoryUser;
  email: string;
  /** A session of the owner (live mode; `X-Mode: test` for test mode). */
  session: string;
  org: { id: string; name: string };
  /** An API key of the mode asked for. */
  key: string;
  contactId: string;
}

/**
 * An owner with an organisation, a session, an API key of `mode` with `scopes`, a registrant
 * contact and `balance` in that mode: what five requests used to set up.
 */
export async function insertCustomer(
  deps: Deps,
  props: { scopes: string[]; mode?: KeyMode; balance?: number; plan?: Plan; email?: string; contact?: Partial<ContactFields> },
): Promise<FactoryCustomer> {
  const mode = props.mode ?? 'test';
  const livemode = mode === 'live';
  const user = await insertUser(deps, props.email ?? uniqueEmail('customer'));
  const org = await insertOrg(deps, { owner: user, ...(props.plan ? { plan: props.plan } : {}) });
  const { key } = await insertKey(deps, { user, scopes: props.scopes, mode });
  if (props.balance) await creditBalance(deps, { orgId: org.id, livemode, amount: props.balance, by: user });
  const contactId = await insertContact(deps, { orgId: org.id, livemode, fields: { email: user.email, ...props.contact } });
  return { user, email: user.email, session: await sessionOf(deps, user), org, key, contactId };
}

/**
 * A registration as the api writes it before starting its workflow (beginOperation): the domain
 * `registering`, the operation `pending` with its sealed workflow input, the price reserved, all in
 * one transaction; no workflow started. `input` overrides the workflow's input (short retries, name
 * servers); `ageSeconds` back-dates the operation.
 */
export async function insertPendingRegistration(
  deps: Pick<Deps, 'db' | 'payloadKeys'>,
  props: { orgId: string; livemode: boolean; contactId: string; amount: number; name?: string; ageSeconds?: number; input?: Partial<RegisterDomainInput> },
): Promise<Operation> {
  const mode = modeOf(props.livemode);
  const name = props.name ?? `pending-${randomBase62(8).toLowerCase()}.com`;
  const workflowId = `register:${props.orgId}:${props.livemode ? 'live' : 'test'}:usr_factory:${name}`;
  const operationId = derivedId('op', workflowId);
  const domainId = derivedId('dom', workflowId);
  const input: RegisterDomainInput = {
    operationId,
    orgId: props.orgId,
    livemode: props.livemode,
    domainId,
    name,
    years: 1,
    registrantContactId: props.contactId,
    nameservers: [],
    autoRenew: false,
    premiumPriceCents: null,
    pollIntervalMs: 500,
    ...props.input,
  };
  return withTransaction(deps.db, async (tx) => {
    await insertDomain(tx, mode, {
      id: domainId, status: 'registering', orgId: props.orgId, name, years: input.years, autoRenew: input.autoRenew, nameservers: input.nameservers,
      registrantContactId: props.contactId, adminContactId: null, techContactId: null,
    });
    const operation = await insertOperation(tx, mode, {
      id: operationId, orgId: props.orgId, type: 'domain.register', domain: name, domainId, workflowId,
      workflowInput: sealJson(deps.payloadKeys, WORKFLOW_INPUT_PURPOSE, input), amount: props.amount, requestHash: 'factory',
    });
    await reserve({ tx, orgId: props.orgId, livemode: props.livemode, operationId, amount: props.amount, description: `Registration of ${name}` });
    if (props.ageSeconds) await tx.query(`UPDATE operations SET created_at = now() - make_interval(secs => $2) WHERE id = $1`, [operationId, props.ageSeconds]);
    return operation;
  });
}
