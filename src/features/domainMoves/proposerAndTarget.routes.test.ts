/**
 * Who may move a domain where (docs/api-guide.md, Moving a domain): a move may be proposed to any
 * organisation id, and the answer is the same whether or not that organisation exists; it can be
 * accepted only while its proposer is still an owner or admin of the source, so removing, demoting
 * or losing the proposer cancels their pending moves.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../../../test/support/testApp.js';
import { bearer, jsonHeaders, uniqueEmail } from '../../../test/support/actors.js';
import { insertKey, insertMember, insertOrg, insertUser, sessionOf, type FactoryUser } from '../../../test/support/factories.js';
import { DNS_SCOPES, insertActiveDomain } from '../../../test/support/domains.js';
import { readJson, type MessageErrorBody } from '../../../test/support/http.js';
import { startSmtpSink, type SmtpSink } from '../../../test/support/smtpSink.js';
import { holdLock } from '../../../test/support/heldLock.js';
import { listAuditEventsForTarget } from '../../audit/auditEvents.js';
import { findDomainHoldingName } from '../domains/domains.repository.js';
import { newId } from '../../ids.js';
import type { PresentedDomainMove } from './domainMove.presenter.js';
import { insertDomainMove } from './domainMoves.repository.js';
import { modeOf } from '../../db/modeScope.js';

let app: TestApp;
let smtp: SmtpSink;
beforeAll(async () => {
  smtp = await startSmtpSink();
  app = await startTestApp({ env: { SMTP_URL: smtp.url } });
});
afterAll(async () => {
  await app?.close();
  await smtp?.close();
});

const SCOPES = [...DNS_SCOPES, 'orgs:read'];
const mode = modeOf(false);
/** Pending moves a free organisation may have per mode (times 5 on pro, 20 on enterprise). */
const FREE_PENDING_MOVES = 50;

interface Person {
  user: FactoryUser;
  key: string;
  session: string;
}

async function person(label: string): Promise<Person> {
  const user = await insertUser(app.deps, uniqueEmail(label));
  return { user, key: (await insertKey(app.deps, { user, scopes: SCOPES, mode: 'test' })).key, session: await sessionOf(app.deps, user) };
}

/**
 * Olga owns the source, where Ada is an admin; Bob owns the target, where Dan is an admin. Ada
 * belongs to nothing on the target's side unless `adaInTarget` (today's rule needed it).
 */
async function twoOrganisations(props: { adaInTarget?: boolean; plan?: 'free' | 'enterprise' } = {}) {
  const [olga, ada, bob, dan] = [await person('olga'), await person('ada'), await person('bob'), await person('dan')];
  const source = await insertOrg(app.deps, { owner: olga.user, name: 'Source Ltd', plan: props.plan ?? 'enterprise' });
  const target = await insertOrg(app.deps, { owner: bob.user, name: 'Target Ltd', plan: 'enterprise' });
  await insertMember(app.deps, { orgId: source.id, user: ada.user, role: 'admin' });
  await insertMember(app.deps, { orgId: target.id, user: dan.user, role: 'admin' });
  if (props.adaInTarget) await insertMember(app.deps, { orgId: target.id, user: ada.user, role: 'member' });
  return { olga, ada, bob, dan, source, target };
}

function propose(orgId: string, who: Person, domain: string, toOrgId: string) {
  return app.fetch(`/api/v1/orgs/${orgId}/domains/${domain}/moves`, { method: 'POST', headers: jsonHeaders(who.key), body: JSON.stringify({ to_org_id: toOrgId }) });
}

function accept(orgId: string, who: Person, moveId: string) {
  return app.fetch(`/api/v1/orgs/${orgId}/domain-moves/${moveId}/accept`, { method: 'POST', headers: bearer(who.key) });
}

async function getMove(orgId: string, who: Person, moveId: string): Promise<PresentedDomainMove> {
  return readJson<PresentedDomainMove>(await app.fetch(`/api/v1/orgs/${orgId}/domain-moves/${moveId}`, { headers: bearer(who.key) }));
}

async function incoming(orgId: string, who: Person): Promise<PresentedDomainMove[]> {
  return (await readJson<{ data: PresentedDomainMove[] }>(await app.fetch(`/api/v1/orgs/${orgId}/domain-moves?direction=incoming`, { headers: bearer(who.key) }))).data;
}

async function codeOf(res: Response): Promise<[number, string]> {
  return [res.status, (await readJson<MessageErrorBody>(res)).code];
}

function changeRole(orgId: string, by: Person, of: Person, role: 'member' | 'admin') {
  return app.fetch(`/api/v1/orgs/${orgId}/members/${of.user.id}`, { method: 'PATCH', headers: jsonHeaders(by.session), body: JSON.stringify({ role }) });
}

function removeMember(orgId: string, by: Person, of: Person) {
  return app.fetch(`/api/v1/orgs/${orgId}/members/${of.user.id}`, { method: 'DELETE', headers: bearer(by.session) });
}

/** A pending move of a fresh domain of the source, proposed by Ada. */
async function pendingMove(s: Awaited<ReturnType<typeof twoOrganisations>>): Promise<{ name: string; move: PresentedDomainMove }> {
  const name = await insertActiveDomain(app, { org: s.source, livemode: false });
  const proposed = await propose(s.source.id, s.ada, name, s.target.id);
  expect(proposed.status).toBe(201);
  return { name, move: await readJson<PresentedDomainMove>(proposed) };
}

describe('a move is accepted only while its proposer may still propose it', () => {
  const ways = [
    ['removed by an owner', (s: Awaited<ReturnType<typeof twoOrganisations>>) => removeMember(s.source.id, s.olga, s.ada), 204, 'proposer_removed'],
    ['demoted to member', (s: Awaited<ReturnType<typeof twoOrganisations>>) => changeRole(s.source.id, s.olga, s.ada, 'member'), 200, 'proposer_demoted'],
    ['leaving the organisation', (s: Awaited<ReturnType<typeof twoOrganisations>>) => removeMember(s.source.id, s.ada, s.ada), 204, 'proposer_left'],
  ] as const;
  for (const [how, act, status, reason] of ways) {
    it(`cancels the pending moves of a proposer ${how}: a later accept is MOVE_NOT_PENDING, both sides are told`, async () => {
      const s = await twoOrganisations({ adaInTarget: true });
      const { name, move } = await pendingMove(s);
      // Another admin's move of the same source is not the proposer's: it stays pending.
      const olgasName = await insertActiveDomain(app, { org: s.source, livemode: false });
      const olgasMove = await readJson<PresentedDomainMove>(await propose(s.source.id, s.olga, olgasName, s.target.id));

      expect((await act(s)).status).toBe(status);

      expect(await codeOf(await accept(s.target.id, s.bob, move.id))).toEqual([409, 'MOVE_NOT_PENDING']);
      expect(await getMove(s.target.id, s.bob, move.id)).toMatchObject({ status: 'cancelled', cancelled_by: 'source', decided_at: expect.any(String) });
      expect((await findDomainHoldingName(app.deps.db, mode, name))!.orgId).toBe(s.source.id);
      expect((await getMove(s.target.id, s.bob, olgasMove.id)).status).toBe('pending');
      // What a cancelled move sends: the cancellation mail to the owners of both sides, and an audit entry.
      await smtp.waitFor((m) => m.envelopeTo.includes(s.bob.user.email) && m.subject === `Move of ${name} to "Target Ltd" cancelled (test mode)`);
      await smtp.waitFor((m) => m.envelopeTo.includes(s.olga.user.email) && /cancelled/.test(m.subject ?? '') && (m.subject ?? '').includes(name));
      const audit = await listAuditEventsForTarget(app.deps.db, 'domain_move', move.id);
      expect(audit.find((a) => a.action === 'domain.move_cancelled')).toMatchObject({ orgId: s.source.id, data: expect.objectContaining({ reason }) });
      expect((await accept(s.target.id, s.bob, olgasMove.id)).status).toBe(200);
    });
  }

  it('re-checks the proposer on acceptance itself: a role lost without the cancellation (as before this rule) is MOVE_NOT_PENDING', async () => {
    const s = await twoOrganisations({ adaInTarget: true });
    const { name, move } = await pendingMove(s);
    await app.deps.db.query(`UPDATE memberships SET role = 'member' WHERE org_id = $1 AND user_id = $2`, [s.source.id, s.ada.user.id]);
    const refused = await accept(s.target.id, s.bob, move.id);
    expect(await readJson<MessageErrorBody>(refused)).toMatchObject({ code: 'MOVE_NOT_PENDING', detail: expect.stringContaining('proposer') });
    expect((await findDomainHoldingName(app.deps.db, mode, name))!.orgId).toBe(s.source.id);
  });

  it('leaves the moves of a member whose role stays owner or admin', async () => {
    const s = await twoOrganisations({ adaInTarget: true });
    const { move } = await pendingMove(s);
    expect((await changeRole(s.source.id, s.olga, s.ada, 'admin')).status).toBe(200);
    expect((await accept(s.target.id, s.bob, move.id)).status).toBe(200);
  });
});

/** A row or advisory lock held by the test until `release` (test/support/heldLock.ts). */
const holdRowLock = (sql: string, id: string) => holdLock(app.deps.db, sql, [id]);

describe('an acceptance racing the proposer’s demotion', () => {
  it('a demotion that commits while the acceptance waits for the domain wins: the acceptance is MOVE_NOT_PENDING', async () => {
    const s = await twoOrganisations({ adaInTarget: true });
    const { name, move } = await pendingMove(s);
    const domain = (await findDomainHoldingName(app.deps.db, mode, name))!;
    const lock = await holdRowLock('SELECT id FROM domains WHERE id = $1 FOR UPDATE', domain.id);
    let accepted: Promise<Response>;
    try {
      accepted = accept(s.target.id, s.bob, move.id);
      await lock.waitFor(1);
      expect((await changeRole(s.source.id, s.olga, s.ada, 'member')).status).toBe(200);
    } finally {
      await lock.release();
    }
    expect(await codeOf(await accepted)).toEqual([409, 'MOVE_NOT_PENDING']);
    expect((await findDomainHoldingName(app.deps.db, mode, name))!.orgId).toBe(s.source.id);
  });

  it('a demotion sent while the acceptance holds the move waits for it: the move is accepted, then the proposer demoted', async () => {
    const s = await twoOrganisations({ adaInTarget: true });
    const { name, move } = await pendingMove(s);
    // Held on the move's row: the acceptance has the domain and the proposer's membership by then.
    const lock = await holdRowLock('SELECT id FROM domain_moves WHERE id = $1 FOR UPDATE', move.id);
    let accepted: Promise<Response>;
    let demoted: Promise<Response>;
    try {
      accepted = accept(s.target.id, s.bob, move.id);
      await lock.waitFor(1);
      demoted = changeRole(s.source.id, s.olga, s.ada, 'member');
      await lock.waitFor(2);
    } finally {
      await lock.release();
    }
    expect((await accepted).status).toBe(200);
    expect((await demoted).status).toBe(200);
    expect((await findDomainHoldingName(app.deps.db, mode, name))!.orgId).toBe(s.target.id);
    expect((await getMove(s.target.id, s.bob, move.id)).status).toBe('accepted');
  });
});

describe('a proposal racing the proposer’s demotion', () => {
  it('a demotion sent while the proposal is under way waits for it, then cancels the new move', async () => {
    const s = await twoOrganisations({ adaInTarget: true });
    const name = await insertActiveDomain(app, { org: s.source, livemode: false });
    // The bound's lock (domainMoves.repository.ts) is the proposal's last before it writes: by then it holds the proposer's membership.
    const lock = await holdRowLock(`SELECT pg_advisory_xact_lock(hashtext('domain_moves_pending:' || $1::text))`, `${s.source.id}:test`);
    let proposed: Promise<Response>;
    let demoted: Promise<Response>;
    try {
      proposed = propose(s.source.id, s.ada, name, s.target.id);
      await lock.waitFor(1);
      demoted = changeRole(s.source.id, s.olga, s.ada, 'member');
      await lock.waitFor(2);
    } finally {
      await lock.release();
    }
    const answer = await proposed;
    expect(answer.status).toBe(201);
    expect((await demoted).status).toBe(200);
    const move = await readJson<PresentedDomainMove>(answer);
    expect(await getMove(s.target.id, s.bob, move.id)).toMatchObject({ status: 'cancelled', cancelled_by: 'source' });
    expect(await codeOf(await accept(s.target.id, s.bob, move.id))).toEqual([409, 'MOVE_NOT_PENDING']);
  });
});

describe('a move may be proposed to any organisation id', () => {
  it('answers a nonexistent organisation as an existing one: 201, a pending move of the same shape, the same mail to the source', async () => {
    const s = await twoOrganisations();
    const [known, unknown] = [await insertActiveDomain(app, { org: s.source, livemode: false }), await insertActiveDomain(app, { org: s.source, livemode: false })];
    const nowhere = newId('org');
    const toKnown = await propose(s.source.id, s.ada, known, s.target.id);
    const toUnknown = await propose(s.source.id, s.ada, unknown, nowhere);
    expect([toKnown.status, toUnknown.status]).toEqual([201, 201]);
    const [a, b] = [await readJson<PresentedDomainMove>(toKnown), await readJson<PresentedDomainMove>(toUnknown)];
    const shape = (m: PresentedDomainMove, domain: string, toOrgId: string): unknown =>
      JSON.parse(JSON.stringify(m).replaceAll(m.id, 'MOVE').replaceAll(domain, 'DOMAIN').replaceAll(toOrgId, 'TARGET').replace(/"\d{4}-[^"]+"/g, '"TIME"'));
    expect(shape(a, known, s.target.id)).toEqual(shape(b, unknown, nowhere));
    expect(b).toMatchObject({ status: 'pending', to_org: { id: nowhere, name: null }, from_org: s.source });
    // The source's owners and admins read the same mail either way: the target named by its id.
    const mailOf = async (domain: string, toOrgId: string, who: Person) => {
      const mail = await smtp.waitFor((m) => m.envelopeTo.includes(who.user.email) && (m.subject ?? '').includes(domain));
      return [mail.subject, mail.text].map((t) => t!.replaceAll(domain, 'DOMAIN').replaceAll(toOrgId, 'TARGET').replace(/mov_\w+/g, 'MOVE').replace(/at .* UTC/, 'at TIME'));
    };
    expect(await mailOf(known, s.target.id, s.olga)).toEqual(await mailOf(unknown, nowhere, s.olga));
    expect((await mailOf(known, s.target.id, s.olga))[1]).not.toContain('Target Ltd');
    // The source's own view of a pending move does not name the target either.
    expect((await getMove(s.source.id, s.ada, a.id)).to_org).toEqual({ id: s.target.id, name: null });
  });

  it('lets an admin of an organisation the proposer is not in see the move and accept it', async () => {
    const s = await twoOrganisations();
    const { name, move } = await pendingMove(s);
    await smtp.waitFor((m) => m.envelopeTo.includes(s.bob.user.email) && m.subject === `Move of ${name} to "Target Ltd" proposed (test mode)`);
    expect((await incoming(s.target.id, s.dan)).map((m) => m.id)).toContain(move.id);
    const accepted = await accept(s.target.id, s.dan, move.id);
    expect(accepted.status).toBe(200);
    expect(await readJson<PresentedDomainMove>(accepted)).toMatchObject({ status: 'accepted', to_org: { id: s.target.id, name: 'Target Ltd' } });
    expect((await app.fetch(`/api/v1/orgs/${s.target.id}/domains/${name}`, { headers: bearer(s.dan.key) })).status).toBe(200);
    // Once the target has acted, the source sees whom it went to.
    expect((await getMove(s.source.id, s.ada, move.id)).to_org).toEqual({ id: s.target.id, name: 'Target Ltd' });
  });

  it('refuses a malformed organisation id (422) and the source itself (422), as before', async () => {
    const s = await twoOrganisations();
    const name = await insertActiveDomain(app, { org: s.source, livemode: false });
    for (const bad of ['abc', 'org_short', `usr_${newId('org').slice(4)}`, `${newId('org')}x`]) {
      const refused = await propose(s.source.id, s.ada, name, bad);
      expect(refused.status, bad).toBe(422);
      expect(await refused.json()).toMatchObject({ detail: [{ loc: ['body', 'to_org_id'] }] });
    }
    const same = await propose(s.source.id, s.ada, name, s.source.id);
    expect(same.status).toBe(422);
    expect(await same.json()).toMatchObject({ detail: [{ loc: ['body', 'to_org_id'] }] });
  });

  it('does not tell the proposer that the target holds a domain of that name (test mode) until it accepts', async () => {
    const s = await twoOrganisations();
    const name = await insertActiveDomain(app, { org: s.source, livemode: false });
    await insertActiveDomain(app, { org: s.target, livemode: false }, { name });
    const proposed = await propose(s.source.id, s.ada, name, s.target.id);
    expect(proposed.status).toBe(201);
    const refused = await accept(s.target.id, s.bob, (await readJson<PresentedDomainMove>(proposed)).id);
    expect(await codeOf(refused)).toEqual([409, 'DOMAIN_STATE_CONFLICT']);
  });

  it(`holds at most ${FREE_PENDING_MOVES} pending moves per source organisation and mode on the free plan: the next is 409 DOMAIN_MOVE_LIMIT`, async () => {
    const s = await twoOrganisations({ plan: 'free' });
    const waiting = [];
    for (let i = 1; i < FREE_PENDING_MOVES; i += 1) waiting.push(await insertActiveDomain(app, { org: s.source, livemode: false }));
    for (const name of waiting) {
      const domain = (await findDomainHoldingName(app.deps.db, mode, name))!;
      await insertDomainMove(app.deps.db, mode, { id: newId('mov'), domainId: domain.id, domainName: name, fromOrgId: s.source.id, toOrgId: newId('org'), proposedBy: s.ada.user.id });
    }
    const [last, over] = [await insertActiveDomain(app, { org: s.source, livemode: false }), await insertActiveDomain(app, { org: s.source, livemode: false })];
    expect((await propose(s.source.id, s.ada, last, newId('org'))).status).toBe(201);
    const refused = await propose(s.source.id, s.ada, over, newId('org'));
    expect(await readJson<MessageErrorBody>(refused)).toMatchObject({ code: 'DOMAIN_MOVE_LIMIT', detail: expect.stringContaining(String(FREE_PENDING_MOVES)) });
    expect(refused.status).toBe(409);
    // Live mode counts its own.
    const live = (await insertKey(app.deps, { user: s.ada.user, scopes: SCOPES, mode: 'live' })).key;
    const liveName = await insertActiveDomain(app, { org: s.source, livemode: true });
    expect((await propose(s.source.id, { ...s.ada, key: live }, liveName, newId('org'))).status).toBe(201);
    const document = await readJson<{ paths: Record<string, { post: { responses: Record<string, { description: string }> } }> }>(await app.fetch('/api/v1/openapi.json'));
    expect(document.paths['/api/v1/orgs/{org_oid}/domains/{domain}/moves']!.post.responses['409']!.description).toContain('DOMAIN_MOVE_LIMIT');
  });
});
