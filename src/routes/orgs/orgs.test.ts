import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../../../test/support/testApp.js';
import { bearer, createKey, createOrg, jsonHeaders, sessionToken, uniqueEmail } from '../../../test/support/actors.js';
import { readJson, type MessageErrorBody } from '../../../test/support/http.js';
import { listAuditEventsForTarget } from '../../db/repositories/auditEvents.js';

let app: TestApp;
beforeAll(async () => {
  app = await startTestApp();
});
afterAll(async () => app?.close());

interface Me {
  id: string;
  orgs: { id: string; role: string }[];
}

const me = async (token: string) => readJson<Me>(await app.fetch('/api/v1/me', { headers: bearer(token) }));
const addMember = (token: string, orgId: string, body: unknown) =>
  app.fetch(`/api/v1/orgs/${orgId}/members`, { method: 'POST', headers: jsonHeaders(token), body: JSON.stringify(body) });
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
    expect(await shown.json()).toEqual({ ...org, role: 'owner' });
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

describe('members', () => {
  it('owners and admins add users by e-mail; members cannot; duplicates and strangers are refused', async () => {
    const [ownerEmail, adminEmail, memberEmail, lateEmail] = ['owner', 'admin', 'member', 'late'].map(uniqueEmail);
    const owner = await sessionToken(app, ownerEmail!);
    const admin = await sessionToken(app, adminEmail!);
    const member = await sessionToken(app, memberEmail!);
    const org = await createOrg(app, owner);

    const added = await addMember(owner, org.id, { email: adminEmail!.toUpperCase(), role: 'admin' });
    expect(added.status).toBe(201);
    expect(await added.json()).toMatchObject({ email: adminEmail, role: 'admin', user_id: (await me(admin)).id });
    expect((await addMember(admin, org.id, { email: memberEmail, role: 'member' })).status).toBe(201);

    const byMember = await addMember(member, org.id, { email: ownerEmail, role: 'member' });
    expect(byMember.status).toBe(403);
    expect((await readJson<MessageErrorBody>(byMember)).code).toBe('FORBIDDEN');
    const duplicate = await addMember(owner, org.id, { email: memberEmail, role: 'admin' });
    expect(duplicate.status).toBe(409);
    expect((await readJson<MessageErrorBody>(duplicate)).code).toBe('DUPLICATE');
    const unknown = await addMember(owner, org.id, { email: lateEmail, role: 'member' });
    expect(unknown.status).toBe(404);
    expect((await addMember(owner, org.id, { email: 'not-an-email', role: 'owner' })).status).toBe(422);

    const members = await readJson<{ data: { email: string; role: string }[] }>(
      await app.fetch(`/api/v1/orgs/${org.id}/members`, { headers: bearer(member) }),
    );
    expect(members.data.map((m) => [m.email, m.role])).toEqual([
      [memberEmail, 'member'],
      [adminEmail, 'admin'],
      [ownerEmail, 'owner'],
    ]);
    const audit = await listAuditEventsForTarget(app.deps.db, 'membership', (await me(member)).id);
    expect(audit.map((e) => [e.action, e.orgId])).toEqual([['org.member_added', org.id]]);
  });

  it('members leave, admins remove members but not owners, and the last owner cannot leave', async () => {
    const owner = await sessionToken(app, uniqueEmail('owner'));
    const adminEmail = uniqueEmail('admin');
    const memberEmail = uniqueEmail('member');
    const admin = await sessionToken(app, adminEmail);
    const member = await sessionToken(app, memberEmail);
    const org = await createOrg(app, owner);
    await addMember(owner, org.id, { email: adminEmail, role: 'admin' });
    await addMember(owner, org.id, { email: memberEmail, role: 'member' });
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
    expect(audit.map((e) => [e.action, e.data])).toEqual([
      ['org.member_added', { role: 'member' }],
      ['org.member_removed', { role: 'member', left: true }],
    ]);
  });
});
