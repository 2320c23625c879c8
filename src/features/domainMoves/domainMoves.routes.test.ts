import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../../../test/support/testApp.js';
import { bearer, jsonHeaders, uniqueEmail } from '../../../test/support/actors.js';
import { insertKey, insertMember, insertOrg, insertUser, sessionOf, type FactoryUser } from '../../../test/support/factories.js';
import { DNS_SCOPES, insertActiveDomain, registerTestDomain } from '../../../test/support/domains.js';
import { readJson, type MessageErrorBody } from '../../../test/support/http.js';
import { startSmtpSink, type SmtpSink } from '../../../test/support/smtpSink.js';
import { insertOperation, WORKFLOW_INPUT_PURPOSE, updateOperation } from '../domains/operations.repository.js';
import { sealJson } from '../../db/sealedJson.js';
import { findDomainHoldingName } from '../domains/domains.repository.js';
import { listAuditEventsForTarget } from '../../audit/auditEvents.js';
import { lifecycleWorkflowId } from '../lifecycle/watch.js';
import { newId } from '../../ids.js';
import type { PresentedDomainMove } from './domainMove.presenter.js';
import { recordHistory } from '../../../test/support/histories.js';
import { findDomainNotice, markDomainNoticeMailed, recordDomainNoticeRow } from '../lifecycle/domainNotices.repository.js';
import { modeOf } from '../../db/modeScope.js';

let app: TestApp;
let smtp: SmtpSink;
beforeAll(async () => {
  smtp = await startSmtpSink();
  app = await startTestApp({ worker: true, env: { SMTP_URL: smtp.url } });
});
afterAll(async () => {
  await app?.close();
  await smtp?.close();
});

const SCOPES = [...DNS_SCOPES, 'contacts:read', 'webhooks:read', 'orgs:read'];

interface Side {
  user: FactoryUser;
  org: { id: string; name: string };
  key: string;
}

/** Ada owns the source and is a member of the target; Bob owns the target. Test-mode keys, enterprise plans. */
async function twoOrganisations(): Promise<{ ada: Side; bob: Side }> {
  const adaUser = await insertUser(app.deps, uniqueEmail('ada'));
  const bobUser = await insertUser(app.deps, uniqueEmail('bob'));
  const source = await insertOrg(app.deps, { owner: adaUser, name: 'Source Ltd', plan: 'enterprise' });
  const target = await insertOrg(app.deps, { owner: bobUser, name: 'Target Ltd', plan: 'enterprise' });
  await insertMember(app.deps, { orgId: target.id, user: adaUser, role: 'member' });
  const adaKey = (await insertKey(app.deps, { user: adaUser, scopes: SCOPES, mode: 'test' })).key;
  const bobKey = (await insertKey(app.deps, { user: bobUser, scopes: SCOPES, mode: 'test' })).key;
  return { ada: { user: adaUser, org: source, key: adaKey }, bob: { user: bobUser, org: target, key: bobKey } };
}

function propose(side: Side, domain: string, toOrgId: string, idempotencyKey?: string) {
  return app.fetch(`/api/v1/orgs/${side.org.id}/domains/${domain}/moves`, {
    method: 'POST',
    headers: { ...jsonHeaders(side.key), ...(idempotencyKey ? { 'idempotency-key': idempotencyKey } : {}) },
    body: JSON.stringify({ to_org_id: toOrgId }),
  });
}

function decide(side: Side, moveId: string, action: 'accept' | 'cancel', key = side.key) {
  return app.fetch(`/api/v1/orgs/${side.org.id}/domain-moves/${moveId}/${action}`, { method: 'POST', headers: bearer(key) });
}

async function list(side: Side, direction: 'outgoing' | 'incoming'): Promise<PresentedDomainMove[]> {
  const res = await app.fetch(`/api/v1/orgs/${side.org.id}/domain-moves?direction=${direction}`, { headers: bearer(side.key) });
  expect(res.status).toBe(200);
  return (await readJson<{ data: PresentedDomainMove[] }>(res)).data;
}

async function codeOf(res: Response): Promise<[number, string]> {
  return [res.status, (await readJson<MessageErrorBody>(res)).code];
}

describe('moving a domain between organisations', () => {
  it('hands the domain, its records, contacts and lifecycle to the target on acceptance, charging nothing', async () => {
    const { ada, bob } = await twoOrganisations();
    const name = await registerTestDomain(app, { ...ada, keys: [ada.key], email: ada.user.email, livemode: false, session: '' });
    const domainUrl = (side: Side) => `/api/v1/orgs/${side.org.id}/domains/${name}`;
    const record = await app.fetch(`${domainUrl(ada)}/records`, {
      method: 'POST',
      headers: jsonHeaders(ada.key),
      body: JSON.stringify({ type: 'A', name: 'www', content: '192.0.2.10' }),
    });
    expect(record.status).toBe(201);
    await app.fetch(domainUrl(ada), { method: 'PATCH', headers: jsonHeaders(ada.key), body: '{"auto_renew":true}' });
    const balanceBefore = await readJson<{ available: number }>(await app.fetch(`/api/v1/orgs/${ada.org.id}/billing/balance`, { headers: bearer(ada.key) }));

    const proposed = await propose(ada, name, bob.org.id, `move-${name}`);
    expect(proposed.status).toBe(201);
    const move = await readJson<PresentedDomainMove>(proposed);
    // The source reads the target by its id until the target answers.
    expect(move).toMatchObject({ domain: name, status: 'pending', livemode: false, from_org: ada.org, to_org: { id: bob.org.id, name: null }, cancelled_by: null });
    expect(Date.parse(move.expires_at) - Date.parse(move.created_at)).toBe(7 * 86_400_000);
    // The same Idempotency-Key replays the answer; it does not propose a second move.
    const replayed = await propose(ada, name, bob.org.id, `move-${name}`);
    expect(replayed.headers.get('idempotent-replayed')).toBe('true');
    expect((await readJson<PresentedDomainMove>(replayed)).id).toBe(move.id);
    expect((await list(ada, 'outgoing')).map((m) => m.id)).toEqual([move.id]);
    expect((await list(bob, 'incoming')).map((m) => m.id)).toEqual([move.id]);
    expect(await list(bob, 'outgoing')).toEqual([]);
    await smtp.waitFor((m) => m.envelopeTo.includes(bob.user.email) && /proposed/.test(m.subject ?? ''));
    await smtp.waitFor((m) => m.envelopeTo.includes(ada.user.email) && /proposed/.test(m.subject ?? ''));
    // Nothing changed hands yet.
    expect((await app.fetch(domainUrl(bob), { headers: bearer(bob.key) })).status).toBe(404);

    const lifecycle = app.deps.temporal.client.workflow.getHandle(lifecycleWorkflowId((await findDomainHoldingName(app.deps.db, modeOf(false), name))!.id));
    const runBefore = (await lifecycle.describe()).runId;
    const accepted = await decide(bob, move.id, 'accept');
    expect(accepted.status).toBe(200);
    expect(await readJson<PresentedDomainMove>(accepted)).toMatchObject({ id: move.id, status: 'accepted', decided_at: expect.any(String) });

    expect((await app.fetch(domainUrl(ada), { headers: bearer(ada.key) })).status).toBe(404);
    const domain = await readJson<{ status: string; auto_renew: boolean; registrant_contact_id: string }>(await app.fetch(domainUrl(bob), { headers: bearer(bob.key) }));
    expect(domain).toMatchObject({ status: 'active', auto_renew: true });
    // The registrant is a copy the target can read; the source keeps its own.
    expect((await app.fetch(`/api/v1/orgs/${bob.org.id}/contacts/${domain.registrant_contact_id}`, { headers: bearer(bob.key) })).status).toBe(200);
    const records = await readJson<{ data: { name: string; content: string }[] }>(await app.fetch(`${domainUrl(bob)}/records`, { headers: bearer(bob.key) }));
    expect(records.data).toEqual([expect.objectContaining({ name: 'www', content: '192.0.2.10' })]);
    expect((await app.fetch(`${domainUrl(ada)}/records`, { headers: bearer(ada.key) })).status).toBe(404);

    // Events and audit entries on both sides; nothing charged on either.
    const eventsOf = async (side: Side) =>
      (await readJson<{ data: { type: string; data: { object: { id: string } } }[] }>(await app.fetch(`/api/v1/orgs/${side.org.id}/events`, { headers: bearer(side.key) }))).data;
    expect((await eventsOf(ada)).filter((e) => e.type.startsWith('domain.moved'))).toEqual([expect.objectContaining({ type: 'domain.moved_out', data: { object: expect.objectContaining({ id: move.id }) } })]);
    expect((await eventsOf(bob)).filter((e) => e.type.startsWith('domain.moved'))).toEqual([expect.objectContaining({ type: 'domain.moved_in' })]);
    const audit = await listAuditEventsForTarget(app.deps.db, 'domain_move', move.id);
    // Both sides' entries share the acceptance's transaction time: compared as a set.
    expect(audit.map((a) => [a.action, a.orgId]).sort()).toEqual([
      ['domain.move_proposed', ada.org.id],
      ['domain.moved_in', bob.org.id],
      ['domain.moved_out', ada.org.id],
    ]);
    expect(await readJson<{ available: number }>(await app.fetch(`/api/v1/orgs/${ada.org.id}/billing/balance`, { headers: bearer(ada.key) }))).toMatchObject({ available: balanceBefore.available, reserved: 0 });
    expect(await readJson<{ available: number }>(await app.fetch(`/api/v1/orgs/${bob.org.id}/billing/balance`, { headers: bearer(bob.key) }))).toMatchObject({ available: 0, reserved: 0 });
    const captured = await app.deps.db.query(`SELECT 1 FROM billing_transactions WHERE org_id = $1 AND type <> 'top_up'`, [bob.org.id]);
    expect(captured.rows).toEqual([]);

    // The lifecycle goes on for the target: its input and search attribute name it.
    await expect.poll(async () => (await lifecycle.describe()).typedSearchAttributes.get({ name: 'OrgId', type: 'KEYWORD' }), { timeout: 15_000 }).toBe(bob.org.id);
    // The run that was told continued as new for the target: a recorded path for the replay test.
    const moved = await recordHistory(app, lifecycle.workflowId, 'domain-lifecycle-moved', runBefore);
    expect(moved.events?.some((e) => e.workflowExecutionContinuedAsNewEventAttributes)).toBe(true);

    await smtp.waitFor((m) => m.envelopeTo.includes(ada.user.email) && /moved to/.test(m.subject ?? ''));
    await smtp.waitFor((m) => m.envelopeTo.includes(bob.user.email) && /moved to/.test(m.subject ?? ''));
    expect(await codeOf(await decide(bob, move.id, 'accept'))).toEqual([409, 'MOVE_NOT_PENDING']);
    expect(await codeOf(await decide(ada, move.id, 'cancel'))).toEqual([409, 'MOVE_NOT_PENDING']);
  });

  it('refuses bad moves: same organisation 422, member role 403, other domains 403 (any other organisation id is proposable: proposerAndTarget.routes.test.ts)', async () => {
    const { ada, bob } = await twoOrganisations();
    const name = await insertActiveDomain(app, { org: ada.org, livemode: false });
    const same = await propose(ada, name, ada.org.id);
    expect(same.status).toBe(422);
    expect(await same.json()).toMatchObject({ detail: [{ loc: ['body', 'to_org_id'] }] });
    // Ada is only a member of the target: she cannot move its domains out.
    const bobsName = await insertActiveDomain(app, { org: bob.org, livemode: false });
    const asMember = await propose({ ...ada, org: bob.org }, bobsName, ada.org.id);
    expect(asMember.status).toBe(403);
    // A key restricted to other domains cannot propose it.
    const restricted = await app.fetch('/api/v1/me/api-keys', {
      method: 'POST',
      headers: jsonHeaders(await sessionOf(app.deps, ada.user)),
      body: JSON.stringify({ name: 'narrow', scopes: ['domains:write'], mode: 'test', allowed_domains: ['other.example'] }),
    });
    const narrowKey = (await readJson<{ key: string }>(restricted)).key;
    expect(await codeOf(await propose({ ...ada, key: narrowKey }, name, bob.org.id))).toEqual([403, 'DOMAIN_NOT_ALLOWED']);
    // A test-mode move stays in test mode: a live key of the target sees nothing and cannot accept it.
    const move = await readJson<PresentedDomainMove>(await propose(ada, name, bob.org.id));
    const bobLive = (await insertKey(app.deps, { user: bob.user, scopes: SCOPES, mode: 'live' })).key;
    expect((await app.fetch(`/api/v1/orgs/${bob.org.id}/domain-moves?direction=incoming`, { headers: bearer(bobLive) })).status).toBe(200);
    expect((await readJson<{ data: unknown[] }>(await app.fetch(`/api/v1/orgs/${bob.org.id}/domain-moves?direction=incoming`, { headers: bearer(bobLive) }))).data).toEqual([]);
    expect((await decide(bob, move.id, 'accept', bobLive)).status).toBe(404);
    // Ada is only a member of the target: she cannot accept into it either.
    expect(await codeOf(await decide({ ...ada, org: bob.org }, move.id, 'accept'))).toEqual([403, 'FORBIDDEN']);
    // The source cannot accept its own proposal; a second proposal waits for the first.
    expect((await decide(ada, move.id, 'accept')).status).toBe(404);
    expect(await codeOf(await propose(ada, name, bob.org.id))).toEqual([409, 'DOMAIN_STATE_CONFLICT']);
  });

  it('lets either side cancel, and answers an expired move MOVE_NOT_PENDING and shows it expired', async () => {
    const { ada, bob } = await twoOrganisations();
    const name = await insertActiveDomain(app, { org: ada.org, livemode: false });
    const first = await readJson<PresentedDomainMove>(await propose(ada, name, bob.org.id));
    const cancelled = await decide(bob, first.id, 'cancel');
    expect(await readJson<PresentedDomainMove>(cancelled)).toMatchObject({ status: 'cancelled', cancelled_by: 'target' });
    expect(await codeOf(await decide(ada, first.id, 'cancel'))).toEqual([409, 'MOVE_NOT_PENDING']);

    const second = await readJson<PresentedDomainMove>(await propose(ada, name, bob.org.id));
    await app.deps.db.query(`UPDATE domain_moves SET expires_at = now() - interval '1 second' WHERE id = $1`, [second.id]);
    expect(await codeOf(await decide(bob, second.id, 'accept'))).toEqual([409, 'MOVE_NOT_PENDING']);
    expect((await list(bob, 'incoming')).find((m) => m.id === second.id)).toMatchObject({ status: 'expired' });
    expect((await app.fetch(`/api/v1/orgs/${ada.org.id}/domains/${name}`, { headers: bearer(ada.key) })).status).toBe(200);
    // An expired move no longer blocks a new one.
    const third = await propose(ada, name, bob.org.id);
    expect(third.status).toBe(201);
    expect(await readJson<PresentedDomainMove>(await decide(ada, (await readJson<PresentedDomainMove>(third)).id, 'cancel'))).toMatchObject({ cancelled_by: 'source' });
  });

  it('refuses a domain with an operation in flight, naming it, on proposal and on acceptance', async () => {
    const { ada, bob } = await twoOrganisations();
    const name = await insertActiveDomain(app, { org: ada.org, livemode: false });
    const move = await readJson<PresentedDomainMove>(await propose(ada, name, bob.org.id));
    const domain = (await findDomainHoldingName(app.deps.db, modeOf(false), name))!;
    const renewal = await insertOperation(app.deps.db, modeOf(false), {
      id: newId('op'),
      orgId: ada.org.id,
      type: 'domain.renew',
      domain: name,
      domainId: domain.id,
      workflowId: `renew:${ada.org.id}:${name}`,
      workflowInput: sealJson(app.deps.payloadKeys, WORKFLOW_INPUT_PURPOSE, {}),
      amount: 0,
    });
    const refused = await decide(bob, move.id, 'accept');
    expect(refused.status).toBe(409);
    expect((await readJson<MessageErrorBody>(refused)).detail).toContain(renewal.id);
    await decide(ada, move.id, 'cancel');
    const again = await propose(ada, name, bob.org.id);
    expect(again.status).toBe(409);
    expect((await readJson<MessageErrorBody>(again)).detail).toContain(`domain.renew operation ${renewal.id}`);
    // The stand-in has no workflow input: ended, so the stranded-operations run (other files) never picks it up.
    await updateOperation(app.deps.db, modeOf(false), renewal.id, { status: 'cancelled' });
  });

  it('readdresses notices not yet mailed to the target, and leaves mailed ones as they were', async () => {
    const { ada, bob } = await twoOrganisations();
    const name = await insertActiveDomain(app, { org: ada.org, livemode: false });
    const mode = modeOf(false);
    const domain = (await findDomainHoldingName(app.deps.db, mode, name))!;
    const facts = (kind: string) => ({ orgId: ada.org.id, name, expiresAt: new Date().toISOString(), at: new Date().toISOString(), recipients: [{ email: ada.user.email, name: null }], reason: kind });
    const notice = async (kind: 'expiring' | 'expired') =>
      (await recordDomainNoticeRow(app.deps.db, mode, { id: newId('ntc'), domainId: domain.id, kind, eventId: newId('evt'), facts: facts(kind) })).notice.id;
    const unmailed = await notice('expiring');
    const mailed = await notice('expired');
    await markDomainNoticeMailed(app.deps.db, mode, mailed);
    const move = await readJson<PresentedDomainMove>(await propose(ada, name, bob.org.id));
    expect((await decide(bob, move.id, 'accept')).status).toBe(200);
    expect((await findDomainNotice(app.deps.db, mode, unmailed))!.facts).toMatchObject({ orgId: bob.org.id, recipients: [{ email: bob.user.email }] });
    expect((await findDomainNotice(app.deps.db, mode, mailed))!.facts).toMatchObject({ orgId: ada.org.id, recipients: [{ email: ada.user.email }] });
  });

  it('moves a live domain in live mode, its DNS zone staying with the registration', async () => {
    const { ada, bob } = await twoOrganisations();
    const live = async (side: Side): Promise<Side> => ({ ...side, key: (await insertKey(app.deps, { user: side.user, scopes: SCOPES, mode: 'live' })).key });
    const [adaLive, bobLive] = [await live(ada), await live(bob)];
    const name = await insertActiveDomain(app, { org: ada.org, livemode: true });
    const domain = (await findDomainHoldingName(app.deps.db, modeOf(true), name))!;
    await app.deps.db.query('INSERT INTO dns_zones (livemode, name, domain_id) VALUES (true, $1, $2)', [name, domain.id]);
    // Invisible from test mode.
    expect((await propose(ada, name, bob.org.id)).status).toBe(404);
    const move = await readJson<PresentedDomainMove>(await propose(adaLive, name, bob.org.id));
    expect(move.livemode).toBe(true);
    expect((await decide(bobLive, move.id, 'accept')).status).toBe(200);
    expect((await app.fetch(`/api/v1/orgs/${bob.org.id}/domains/${name}`, { headers: bearer(bobLive.key) })).status).toBe(200);
    const zone = await app.deps.db.query<{ domain_id: string }>('SELECT domain_id FROM dns_zones WHERE livemode AND name = $1', [name]);
    expect(zone.rows).toEqual([{ domain_id: domain.id }]);
  });
});
