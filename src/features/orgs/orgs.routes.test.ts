import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../../../test/support/testApp.js';
import { bearer, createKey, createOrg, joinOrg, jsonHeaders, sessionToken, uniqueEmail } from '../../../test/support/actors.js';
import { readJson, type MessageErrorBody } from '../../../test/support/http.js';
import { listAuditEventsForTarget } from '../../audit/auditEvents.js';
import { startSmtpSink, type SmtpSink } from '../../../test/support/smtpSink.js';

let app: TestApp;
let smtp: SmtpSink;
beforeAll(async () => {
  smtp = await startSmtpSink();
  app = await startTestApp({ env: { SMTP_URL: smtp.url, MAIL_FROM: 'Domain Service <noreply@example.com>' } });
});
afterAll(async () => {
  await app?.close();
  await smtp?.close();
});

interface Me {
  id: string;
  orgs: { id: string; role: string }[];
}

const me = async (token: string) => readJson<Me>(await app.fetch('/api/v1/me', { headers: bearer(token) }));
const removeMember = (token: string, orgId: string, userId: string) =>
  app.fetch(`/api/v1/orgs/${orgId}/members/${userId}`, { method: 'DELETE', headers: bearer(token) });

describe('organisations', () => {
  it('creates an organisation with the caller as owner, and lists and shows it', async () => {
    const alice = await sessionToken(app, uniqueEmail('alice'));
    const res = await app.fetch('/api/v1/orgs', { method: 'POST', headers: jsonHeaders(alice), body: '{"name":"  Acme  "}' });
    expect(res.status).toBe(201);
    const org = await readJson<Record<string, string>>(res);
    expect(org).toEqual({ id: expect.stringMatching(/^org_/), name: 'Acme', plan: 'free', created_at: expect.any(String) });
    expect(res.headers.get('location')).toBe(`/api/v1/orgs/${org.id}`);
    expect((await me(alice)).orgs).toEqual([{ id: org.id, name: 'Acme', role: 'owner' }]);
    const listed = await readJson<{ data: unknown[] }>(await app.fetch('/api/v1/orgs', { headers: bearer(alice) }));
    expect(listed.data).toEqual([{ ...org, role: 'owner' }]);
    const shown = await app.fetch(`/api/v1/orgs/${org.id}`, { headers: bearer(alice) });
    expect(await shown.json()).toEqual({ ...org, role: 'owner', monthly_spend_limit: null });
  });

  it('creates one organisation for an Idempotency-Key, however many identical requests arrive at once, and replays it', async () => {
    const bob = await sessionToken(app, uniqueEmail('bob'));
    const create = () => app.fetch('/api/v1/orgs', { method: 'POST', headers: { ...jsonHeaders(bob), 'idempotency-key': 'bob-first-org' }, body: '{"name":"Bob Co"}' });
    const answers = await Promise.all(Array.from({ length: 8 }, create));
    const created = answers.filter((res) => res.status === 201);
    // The first to commit is the first; each other is its replay, or 409 IN_USE while it commits.
    expect(answers.every((res) => res.status === 201 || res.status === 409)).toBe(true);
    expect(created.filter((res) => res.headers.get('idempotent-replayed') === null)).toHaveLength(1);
    const replay = await create();
    expect([replay.status, replay.headers.get('idempotent-replayed')]).toEqual([201, 'true']);
    const org = await readJson<{ id: string }>(replay);
    expect(replay.headers.get('location')).toBe(`/api/v1/orgs/${org.id}`);
    expect((await me(bob)).orgs).toEqual([{ id: org.id, name: 'Bob Co', role: 'owner' }]);
  });

  it('answers 403 NOT_ORG_MEMBER for a stranger, and the same for an organisation that does not exist', async () => {
    const alice = await sessionToken(app, uniqueEmail('alice'));
    const bob = await sessionToken(app, uniqueEmail('bob'));
    const org = await createOrg(app, alice);
    for (const orgId of [org.id, 'org_doesnotexist0000000000']) {
      const res = await app.fetch(`/api/v1/orgs/${orgId}/members`, { headers: bearer(bob) });
      expect(res.status).toBe(403);
      expect(await res.json()).toEqual({ code: 'NOT_ORG_MEMBER', detail: 'You are not a member of this organisation' });
    }
  });

  it('answers 403 INSUFFICIENT_SCOPE naming the scope a key lacks', async () => {
    const alice = await sessionToken(app, uniqueEmail('alice'));
    const key = await createKey(app, alice, { name: 'reader', scopes: ['orgs:read'] });
    const res = await app.fetch('/api/v1/orgs', { method: 'POST', headers: jsonHeaders(key.key), body: '{"name":"x"}' });
    expect(res.status).toBe(403);
    expect(await res.json()).toEqual({ code: 'INSUFFICIENT_SCOPE', detail: 'This API key lacks the scope orgs:write' });
    expect((await app.fetch('/api/v1/orgs', { headers: bearer(key.key) })).status).toBe(200);
  });
});

interface InvitationBody {
  invitation_id: string;
  email: string;
  role: string;
  expires_at: string;
}

const invite = (token: string, orgId: string, body: unknown) =>
  app.fetch(`/api/v1/orgs/${orgId}/members`, { method: 'POST', headers: jsonHeaders(token), body: JSON.stringify(body) });
const accept = (token: string, invitationId: string) =>
  app.fetch(`/api/v1/me/invitations/${invitationId}/accept`, { method: 'POST', headers: bearer(token) });
const changeRole = (token: string, orgId: string, userId: string, role: string) =>
  app.fetch(`/api/v1/orgs/${orgId}/members/${userId}`, { method: 'PATCH', headers: jsonHeaders(token), body: JSON.stringify({ role }) });

describe('invitations', () => {
  it('invites by e-mail, mails the invitee, and the invitee joins by accepting', async () => {
    const [ownerEmail, inviteeEmail] = ['owner', 'invitee'].map(uniqueEmail);
    const owner = await sessionToken(app, ownerEmail!, 'Olivia Owner');
    const org = await createOrg(app, owner, 'Invited Co');

    const res = await invite(owner, org.id, { email: inviteeEmail, role: 'admin' });
    expect(res.status).toBe(201);
    const invitation = await readJson<InvitationBody>(res);
    expect(invitation).toEqual({ invitation_id: expect.stringMatching(/^inv_/), email: inviteeEmail, role: 'admin', expires_at: expect.any(String) });
    const week = Date.parse(invitation.expires_at) - Date.now();
    expect(week).toBeGreaterThan(7 * 86_400_000 - 60_000);
    expect(week).toBeLessThanOrEqual(7 * 86_400_000);
    const mail = await smtp.waitFor((m) => m.envelopeTo.includes(inviteeEmail!));
    expect(mail.subject).toBe('You are invited to join "Invited Co"');
    expect(mail.text).toContain(invitation.invitation_id);
    expect(mail.text).toContain('Olivia Owner');

    // Nothing changed before consent: the invitee (signing in now for the first time) is not a member.
    const invitee = await sessionToken(app, inviteeEmail!.toUpperCase());
    expect((await me(invitee)).orgs).toEqual([]);
    const pending = await readJson<{ data: Record<string, unknown>[] }>(await app.fetch('/api/v1/me/invitations', { headers: bearer(invitee) }));
    expect(pending.data).toEqual([{ ...invitation, org_id: org.id, org_name: 'Invited Co', created_at: expect.any(String) }]);

    const accepted = await accept(invitee, invitation.invitation_id);
    expect(accepted.status).toBe(200);
    expect(await accepted.json()).toEqual({ org_id: org.id, role: 'admin' });
    expect((await me(invitee)).orgs).toEqual([{ id: org.id, name: 'Invited Co', role: 'admin' }]);
    expect((await accept(invitee, invitation.invitation_id)).status).toBe(404); // used up
    expect((await readJson<{ data: unknown[] }>(await app.fetch('/api/v1/me/invitations', { headers: bearer(invitee) }))).data).toEqual([]);
    const audit = await listAuditEventsForTarget(app.deps.db, 'membership', (await me(invitee)).id);
    expect(audit.map((e) => [e.action, e.orgId])).toEqual([['org.member_added', org.id]]);
  });

  it('answers the same whether or not the address has an account', async () => {
    const owner = await sessionToken(app, uniqueEmail('owner'));
    const org = await createOrg(app, owner);
    const known = uniqueEmail('known');
    await sessionToken(app, known);
    const answers = [];
    for (const email of [known, uniqueEmail('nobody')]) {
      const res = await invite(owner, org.id, { email, role: 'member' });
      const body = await readJson<Record<string, unknown>>(res);
      answers.push([res.status, Object.keys(body).sort(), body.email === email]);
      await smtp.waitFor((m) => m.envelopeTo.includes(email));
    }
    expect(answers[0]).toEqual(answers[1]);
    expect(answers[0]).toEqual([201, ['email', 'expires_at', 'invitation_id', 'role'], true]);
  });

  it('refuses foreign, expired and unverified acceptances, and members who invite', async () => {
    const owner = await sessionToken(app, uniqueEmail('owner'));
    const org = await createOrg(app, owner);
    const inviteeEmail = uniqueEmail('invitee');
    const invitee = await sessionToken(app, inviteeEmail);
    const stranger = await sessionToken(app, uniqueEmail('stranger'));
    const { invitation_id: id } = await readJson<InvitationBody>(await invite(owner, org.id, { email: inviteeEmail, role: 'member' }));

    const foreign = await accept(stranger, id);
    expect(foreign.status).toBe(404);
    expect((await readJson<MessageErrorBody>(foreign)).code).toBe('NOT_FOUND');
    expect((await accept(invitee, 'inv_doesnotexist')).status).toBe(404);

    // The identity provider says this session's address is not verified: neither listed nor accepted.
    const unverified = await app.deps.devIdentity!.issueToken({ email: inviteeEmail, emailVerified: false });
    expect((await readJson<{ data: unknown[] }>(await app.fetch('/api/v1/me/invitations', { headers: bearer(unverified) }))).data).toEqual([]);
    const refused = await accept(unverified, id);
    expect(refused.status).toBe(403);
    expect((await readJson<MessageErrorBody>(refused)).code).toBe('EMAIL_NOT_VERIFIED');

    // A provider that sends no `email_verified` has vouched for nothing: the same answers.
    const unasserted = await app.deps.devIdentity!.issueToken({ email: inviteeEmail, emailVerified: null });
    expect((await readJson<{ data: unknown[] }>(await app.fetch('/api/v1/me/invitations', { headers: bearer(unasserted) }))).data).toEqual([]);
    const refusedUnasserted = await accept(unasserted, id);
    expect(refusedUnasserted.status).toBe(403);
    expect(await readJson<MessageErrorBody>(refusedUnasserted)).toEqual({
      code: 'EMAIL_NOT_VERIFIED',
      detail: expect.stringContaining('no email_verified claim') as string,
    });

    await app.deps.db.query(`UPDATE org_invitations SET expires_at = now() - interval '1 second' WHERE id = $1`, [id]);
    const verified = await app.deps.devIdentity!.issueToken({ email: inviteeEmail, emailVerified: true });
    expect((await accept(verified, id)).status).toBe(404);
    expect((await me(invitee)).orgs).toEqual([]);

    const memberEmail = uniqueEmail('member');
    const member = await sessionToken(app, memberEmail);
    await joinOrg(app, owner, org.id, memberEmail, 'member');
    const byMember = await invite(member, org.id, { email: uniqueEmail('x'), role: 'member' });
    expect(byMember.status).toBe(403);
    expect((await readJson<MessageErrorBody>(byMember)).code).toBe('FORBIDDEN');
    expect((await invite(owner, org.id, { email: 'not-an-email', role: 'member' })).status).toBe(422);
    expect((await invite(owner, org.id, { email: uniqueEmail('y'), role: 'owner' })).status).toBe(422);
    const twice = await invite(owner, org.id, { email: memberEmail, role: 'admin' });
    const again = await accept(member, (await readJson<InvitationBody>(twice)).invitation_id);
    expect(again.status).toBe(409);
    expect((await readJson<MessageErrorBody>(again)).code).toBe('DUPLICATE');
  });
});

describe('test keys and organisation changes', () => {
  it('a test key cannot create, invite, accept, change roles or remove; it can read', async () => {
    const ownerEmail = uniqueEmail('owner');
    const owner = await sessionToken(app, ownerEmail);
    const org = await createOrg(app, owner);
    const victimEmail = uniqueEmail('friend');
    const friend = await sessionToken(app, victimEmail);
    const ownerTestKey = await createKey(app, owner, { name: 'ci', scopes: ['orgs:read', 'orgs:write'], mode: 'test' });
    const friendTestKey = await createKey(app, friend, { name: 'ci', scopes: ['orgs:read', 'orgs:write'], mode: 'test' });

    // The attack the review reproduced: the owner's test key makes a friend admin, who then reads live money.
    const attempts = [
      await app.fetch('/api/v1/orgs', { method: 'POST', headers: jsonHeaders(ownerTestKey.key), body: '{"name":"x"}' }),
      await invite(ownerTestKey.key, org.id, { email: victimEmail, role: 'admin' }),
    ];
    const { invitation_id: id } = await readJson<InvitationBody>(await invite(owner, org.id, { email: victimEmail, role: 'member' }));
    attempts.push(await accept(friendTestKey.key, id));
    expect((await accept(friend, id)).status).toBe(200);
    const friendId = (await me(friend)).id;
    attempts.push(await changeRole(ownerTestKey.key, org.id, friendId, 'admin'));
    attempts.push(await removeMember(ownerTestKey.key, org.id, friendId));
    for (const res of attempts) {
      expect(res.status).toBe(403);
      expect(await res.json()).toEqual({
        code: 'LIVE_CREDENTIAL_REQUIRED',
        detail: 'Organisation and membership changes need a live API key or a session; test keys can only read them',
      });
    }
    const members = await readJson<{ data: { user_id: string; role: string }[] }>(
      await app.fetch(`/api/v1/orgs/${org.id}/members`, { headers: bearer(ownerTestKey.key) }),
    );
    expect(members.data.find((m) => m.user_id === friendId)?.role).toBe('member');
    const liveKey = await createKey(app, owner, { name: 'ops', scopes: ['orgs:write'], mode: 'live' });
    expect((await changeRole(liveKey.key, org.id, friendId, 'admin')).status).toBe(200);
  });
});

describe('members', () => {
  it('owners change roles; only owners touch owner; the last owner cannot step down', async () => {
    const owner = await sessionToken(app, uniqueEmail('owner'));
    const [adminEmail, memberEmail] = [uniqueEmail('admin'), uniqueEmail('member')];
    const admin = await sessionToken(app, adminEmail);
    const member = await sessionToken(app, memberEmail);
    const org = await createOrg(app, owner);
    await joinOrg(app, owner, org.id, adminEmail, 'admin');
    await joinOrg(app, owner, org.id, memberEmail, 'member');
    const [ownerId, adminId, memberId] = [(await me(owner)).id, (await me(admin)).id, (await me(member)).id];

    expect((await changeRole(member, org.id, adminId, 'member')).status).toBe(403);
    const adminGrantsOwner = await changeRole(admin, org.id, memberId, 'owner');
    expect(adminGrantsOwner.status).toBe(403);
    expect((await readJson<MessageErrorBody>(adminGrantsOwner)).detail).toBe('Only an owner can grant or take the owner role');
    expect((await changeRole(admin, org.id, ownerId, 'member')).status).toBe(403);
    const promoted = await changeRole(admin, org.id, memberId, 'admin');
    expect(promoted.status).toBe(200);
    expect(await promoted.json()).toEqual({ user_id: memberId, email: memberEmail, role: 'admin' });

    const stepDown = await changeRole(owner, org.id, ownerId, 'admin');
    expect(stepDown.status).toBe(409);
    expect(await stepDown.json()).toEqual({ code: 'LAST_OWNER', detail: 'The last owner cannot step down; make another member owner first' });
    expect((await changeRole(owner, org.id, adminId, 'owner')).status).toBe(200);
    expect((await changeRole(owner, org.id, ownerId, 'member')).status).toBe(200);
    expect((await changeRole(owner, org.id, ownerId, 'owner')).status).toBe(403); // a member now
    expect((await changeRole(admin, org.id, 'usr_nobody', 'member')).status).toBe(404);
    const lastOwner = await removeMember(admin, org.id, adminId);
    expect(lastOwner.status).toBe(409);
    expect((await readJson<MessageErrorBody>(lastOwner)).code).toBe('LAST_OWNER');
    const audit = await listAuditEventsForTarget(app.deps.db, 'membership', ownerId);
    expect(audit.map((e) => [e.action, e.data])).toContainEqual(['org.member_role_changed', { from: 'owner', to: 'member' }]);
  });

  it('members leave, admins remove members but not owners, and the last owner cannot leave', async () => {
    const owner = await sessionToken(app, uniqueEmail('owner'));
    const adminEmail = uniqueEmail('admin');
    const memberEmail = uniqueEmail('member');
    const admin = await sessionToken(app, adminEmail);
    const member = await sessionToken(app, memberEmail);
    const org = await createOrg(app, owner);
    await joinOrg(app, owner, org.id, adminEmail, 'admin');
    await joinOrg(app, owner, org.id, memberEmail, 'member');
    const [ownerId, adminId, memberId] = [(await me(owner)).id, (await me(admin)).id, (await me(member)).id];

    expect((await removeMember(member, org.id, adminId)).status).toBe(403);
    const adminOnOwner = await removeMember(admin, org.id, ownerId);
    expect(adminOnOwner.status).toBe(403);
    expect((await readJson<MessageErrorBody>(adminOnOwner)).detail).toBe('Only an owner can remove an owner');

    const lastOwner = await removeMember(owner, org.id, ownerId);
    expect(lastOwner.status).toBe(409);
    expect(await lastOwner.json()).toEqual({ code: 'LAST_OWNER', detail: 'The last owner cannot leave the organisation' });

    expect((await removeMember(member, org.id, memberId)).status).toBe(204);
    expect((await me(member)).orgs).toEqual([]);
    expect((await app.fetch(`/api/v1/orgs/${org.id}`, { headers: bearer(member) })).status).toBe(403);
    expect((await removeMember(owner, org.id, adminId)).status).toBe(204);
    expect((await removeMember(owner, org.id, adminId)).status).toBe(404);
    const audit = await listAuditEventsForTarget(app.deps.db, 'membership', memberId);
    expect(audit.map((e) => e.action)).toEqual(['org.member_added', 'org.member_removed']);
  });
});
