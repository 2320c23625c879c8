import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../support/testApp.js';
import { bearer, uniqueEmail } from '../support/actors.js';
import { readJson, type MessageErrorBody } from '../support/http.js';

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
  return { status: res.status, body: await readJson<{ name: string } & MessageErrorBody>(res) };
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
