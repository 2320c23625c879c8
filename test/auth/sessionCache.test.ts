import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../support/testApp.js';
import { bearer, createOrg, jsonHeaders, joinOrg, sessionToken, uniqueEmail } from '../support/actors.js';
import { readJson, type MessageErrorBody } from '../support/http.js';
import { timeUntilSeen } from '../support/propagation.js';

// Verified session tokens and their users are reused for up to 1.5 s per process
// (src/auth/sessionPrincipals.ts): these are the promises that still hold.
const shared = { KEY_HASH_SECRET: 'session-cache-test-secret-0123456789abcdef' };
let apiA: TestApp;
let apiB: TestApp;

beforeAll(async () => {
  apiA = await startTestApp({ env: shared });
  apiB = await startTestApp({ env: { ...shared, DATA_DIR: apiA.deps.config.dataDir } });
});
afterAll(async () => {
  await apiB?.close();
  await apiA?.close();
});

const me = async (app: TestApp, token: string) => {
  const res = await app.fetch('/api/v1/me', { headers: bearer(token) });
  return { status: res.status, body: await readJson<{ id: string; name: string; orgs: { id: string; role: string }[] } & MessageErrorBody>(res) };
};

describe('cached sessions', () => {
  it('a user who signs in again with changed claims is seen with them at once, on every process', async () => {
    const email = uniqueEmail('renamed');
    const before = await apiA.deps.devIdentity!.issueToken({ email, name: 'Before' });
    expect((await me(apiA, before)).body.name).toBe('Before');
    expect((await me(apiB, before)).body.name).toBe('Before');
    const after = await apiA.deps.devIdentity!.issueToken({ email, name: 'After' });
    expect((await me(apiB, after)).body.name).toBe('After');
    expect((await me(apiA, after)).body.name).toBe('After');
  });

  it('a token that was answered from memory is refused once it expires, as an uncached one would be', async () => {
    const token = await apiA.deps.devIdentity!.issueToken({ email: uniqueEmail('expiring'), ttlSeconds: 1 });
    const { exp } = JSON.parse(Buffer.from(token.split('.')[1]!, 'base64url').toString()) as { exp: number };
    expect((await me(apiA, token)).status).toBe(200);
    let refused: { at: number; code: string } | undefined;
    while (!refused && Date.now() < exp * 1000 + 10_000) {
      const answer = await me(apiA, token);
      if (answer.status === 401) refused = { at: Date.now(), code: answer.body.code };
      else await new Promise((resolve) => setTimeout(resolve, 50));
    }
    expect(refused?.code).toBe('TOKEN_EXPIRED');
    // jose allows 5 s of clock skew past `exp`; the cache adds nothing to it.
    expect(refused!.at).toBeLessThan(exp * 1000 + 5_000 + 1_000);
  });
});

describe("cached organisations of GET /me", () => {
  it('a changed role or a removal shows at once on the process that made it and within 2 s on every other', async () => {
    const owner = await sessionToken(apiA, uniqueEmail('owner'));
    const org = await createOrg(apiA, owner, 'Cached');
    // The creator sees the new organisation at once.
    expect((await me(apiA, owner)).body.orgs.map((o) => o.id)).toContain(org.id);
    const email = uniqueEmail('member');
    await joinOrg(apiA, owner, org.id, email, 'member');
    const member = await sessionToken(apiA, email);
    const roleOn = async (app: TestApp) => {
      const answer = await me(app, member);
      expect(answer.status).toBe(200);
      return answer.body.orgs.find((o) => o.id === org.id)?.role;
    };
    expect(await roleOn(apiA)).toBe('member');
    expect(await roleOn(apiB)).toBe('member');
    const memberId = (await me(apiA, member)).body.id;

    let started = Date.now();
    const patched = await apiA.fetch(`/api/v1/orgs/${org.id}/members/${memberId}`, { method: 'PATCH', headers: jsonHeaders(owner), body: JSON.stringify({ role: 'admin' }) });
    expect(patched.status).toBe(200);
    expect(await roleOn(apiA)).toBe('admin');
    // Polled every 100 ms, inside the read burst.
    const promoted = await timeUntilSeen(started, async () => (await roleOn(apiB)) === 'admin', 100);
    console.log(`role change seen by the other process after ${promoted.seenMs} ms; the last request to miss it was sent after ${promoted.lastMissSentMs} ms`);
    expect(promoted.seenMs).toBeLessThan(5_000);
    expect(promoted.lastMissSentMs).toBeLessThan(2_000);

    started = Date.now();
    expect((await apiA.fetch(`/api/v1/orgs/${org.id}/members/${memberId}`, { method: 'DELETE', headers: bearer(owner) })).status).toBe(204);
    expect(await roleOn(apiA)).toBeUndefined();
    const removed = await timeUntilSeen(started, async () => (await roleOn(apiB)) === undefined, 100);
    console.log(`removal seen by the other process after ${removed.seenMs} ms; the last request to miss it was sent after ${removed.lastMissSentMs} ms`);
    expect(removed.seenMs).toBeLessThan(5_000);
    expect(removed.lastMissSentMs).toBeLessThan(2_000);
  });
});
