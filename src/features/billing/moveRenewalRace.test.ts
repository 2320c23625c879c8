/**
 * A move's acceptance and a renewal of the same domain take the domain's row lock in turn: whichever
 * takes it first wins, the other is refused, and nothing is charged twice or to the wrong side.
 * The order is made certain by holding the lock in the test and letting go once both requests wait
 * behind it (PostgreSQL grants a row's lock to its waiters in turn).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../../../test/support/testApp.js';
import { bearer, jsonHeaders, uniqueEmail } from '../../../test/support/actors.js';
import { insertKey, insertMember, insertOrg, insertUser } from '../../../test/support/factories.js';
import { DNS_SCOPES, registerTestDomain, type Customer } from '../../../test/support/domains.js';
import { readJson, type MessageErrorBody } from '../../../test/support/http.js';
import { assertLedgerInvariants, type ClientRun } from '../../../test/support/ledgerInvariants.js';
import { findDomainHoldingName } from '../domains/domains.repository.js';
import { holdLock, type HeldLock } from '../../../test/support/heldLock.js';
import { modeOf } from '../../db/modeScope.js';

let app: TestApp;
beforeAll(async () => {
  app = await startTestApp({ worker: true });
});
afterAll(async () => app?.close());

interface Setup {
  source: Customer;
  target: Customer;
  name: string;
  moveId: string;
  registrationId: string;
}

async function domainWithPendingMove(): Promise<Setup> {
  const ada = await insertUser(app.deps, uniqueEmail('ada'));
  const bob = await insertUser(app.deps, uniqueEmail('bob'));
  const sourceOrg = await insertOrg(app.deps, { owner: ada, plan: 'enterprise' });
  const targetOrg = await insertOrg(app.deps, { owner: bob, plan: 'enterprise' });
  await insertMember(app.deps, { orgId: targetOrg.id, user: ada, role: 'member' });
  const customer = async (user: typeof ada, org: { id: string }): Promise<Customer> => {
    const { key } = await insertKey(app.deps, { user, scopes: DNS_SCOPES, mode: 'test' });
    return { session: '', org, keys: [key], key, email: user.email, livemode: false };
  };
  const source = await customer(ada, sourceOrg);
  const target = await customer(bob, targetOrg);
  const name = await registerTestDomain(app, source);
  const { rows } = await app.deps.db.query<{ id: string }>(`SELECT id FROM operations WHERE org_id = $1`, [sourceOrg.id]);
  const proposed = await app.fetch(`/api/v1/orgs/${sourceOrg.id}/domains/${name}/moves`, {
    method: 'POST',
    headers: jsonHeaders(source.key),
    body: JSON.stringify({ to_org_id: targetOrg.id }),
  });
  expect(proposed.status).toBe(201);
  return { source, target, name, moveId: (await readJson<{ id: string }>(proposed)).id, registrationId: rows[0]!.id };
}

const accept = (s: Setup) => app.fetch(`/api/v1/orgs/${s.target.org.id}/domain-moves/${s.moveId}/accept`, { method: 'POST', headers: bearer(s.target.key) });
const renew = (s: Setup) =>
  app.fetch(`/api/v1/orgs/${s.source.org.id}/domains/${s.name}/renew`, {
    method: 'POST',
    headers: { ...jsonHeaders(s.source.key), 'idempotency-key': `renew-${s.name}` },
    body: '{"years":1}',
  });

/** Holds the domain's row lock; `release` lets the waiters through once `waiters` requests wait behind it. */
async function holdDomainLock(name: string): Promise<HeldLock> {
  const domain = (await findDomainHoldingName(app.deps.db, modeOf(false), name))!;
  return holdLock(app.deps.db, 'SELECT id FROM domains WHERE id = $1 FOR UPDATE', [domain.id]);
}

const target = () => ({ db: app.deps.db, fetch: (path: string, init?: RequestInit) => app.fetch(path, init) });

/** `first` and `second` sent in that order, both waiting behind the domain's lock before it is let go. */
async function inTurn(s: Setup, first: (s: Setup) => Promise<Response>, second: (s: Setup) => Promise<Response>): Promise<[Response, Response]> {
  const lock = await holdDomainLock(s.name);
  const answers: Promise<Response>[] = [first(s)];
  try {
    await lock.waitFor(1);
    answers.push(second(s));
    await lock.waitFor(2);
  } finally {
    await lock.release();
  }
  const [a, b] = await Promise.all(answers);
  return [a!, b!];
}

function run(customer: Customer, accepted: string[]): ClientRun {
  return { customer, contactId: '', accepted: new Map(accepted.map((id) => [id, ''])), unexpected: [], counts: {} };
}

describe('a move accepted while a renewal of the domain starts', () => {
  it('accept first: the move wins, the renewal is refused and nothing is reserved or charged for it', async () => {
    const s = await domainWithPendingMove();
    const [accepted, renewed] = await inTurn(s, accept, renew);
    expect(accepted.status).toBe(200);
    expect(renewed.status).toBe(409);
    expect(await readJson<MessageErrorBody>(renewed)).toMatchObject({ code: 'DOMAIN_STATE_CONFLICT', detail: expect.stringMatching(/moved to another organisation/) });
    await assertLedgerInvariants(target(), [run(s.source, [s.registrationId]), run(s.target, [])]);
  });

  it('renewal first: the renewal is charged once to the source, the move is refused naming it, then goes through', async () => {
    const s = await domainWithPendingMove();
    const [renewed, accepted] = await inTurn(s, renew, accept);
    expect([200, 202]).toContain(renewed.status);
    // 200 names the operation as `operation_id`, 202 is the operation itself.
    const answer = await readJson<{ operation_id?: string; id?: string }>(renewed);
    const renewalId = answer.operation_id ?? answer.id!;
    expect(accepted.status).toBe(409);
    expect(await readJson<MessageErrorBody>(accepted)).toMatchObject({ code: 'DOMAIN_STATE_CONFLICT', detail: expect.stringContaining(renewalId) });
    await assertLedgerInvariants(target(), [run(s.source, [s.registrationId, renewalId]), run(s.target, [])]);
    // The renewal done, the move is still pending and goes through, charging nothing more.
    expect((await accept(s)).status).toBe(200);
    await assertLedgerInvariants(target(), [run(s.source, [s.registrationId, renewalId]), run(s.target, [])]);
  });
});
