import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../support/testApp.js';
import { bearer, createKey, createOrg, jsonHeaders, sessionToken, uniqueEmail } from '../support/actors.js';
import { readJson, type FieldErrorBody } from '../support/http.js';

let app: TestApp;
beforeAll(async () => {
  app = await startTestApp();
});
afterAll(async () => app?.close());

const balanceOf = async (headers: Record<string, string>, orgId: string) =>
  readJson<{ available: number; livemode: boolean }>(await app.fetch(`/api/v1/orgs/${orgId}/billing/balance`, { headers }));

describe('X-Mode', () => {
  it('lets a session act in test mode: test objects only, live ones untouched', async () => {
    const session = await sessionToken(app, uniqueEmail('xmode'));
    const org = await createOrg(app, session, 'Toggle');
    const asTest = { ...bearer(session), 'x-mode': 'test' };
    const topUp = await app.fetch(`/api/v1/orgs/${org.id}/billing/top-ups`, {
      method: 'POST',
      headers: { ...jsonHeaders(session), 'x-mode': 'test' },
      body: JSON.stringify({ amount: 900 }),
    });
    expect(topUp.status).toBe(201);
    expect(await balanceOf(asTest, org.id)).toMatchObject({ available: 900, livemode: false });
    expect(await balanceOf(bearer(session), org.id)).toMatchObject({ available: 0, livemode: true });
    expect(await balanceOf({ ...bearer(session), 'x-mode': 'live' }, org.id)).toMatchObject({ livemode: true });
    const me = await readJson<{ auth: { type: string; mode: string } }>(await app.fetch('/api/v1/me', { headers: asTest }));
    expect(me.auth).toMatchObject({ type: 'session', mode: 'test' });
  });

  it('refuses a mode other than the key\'s own, and any value but live or test, with 422 on the header', async () => {
    const session = await sessionToken(app, uniqueEmail('xmode-key'));
    const key = (await createKey(app, session, { name: 'test key', scopes: ['orgs:read'], mode: 'test' })).key;
    expect((await app.fetch('/api/v1/me', { headers: { ...bearer(key), 'x-mode': 'test' } })).status).toBe(200);
    for (const [token, mode] of [[key, 'live'], [session, 'sandbox']] as const) {
      const res = await app.fetch('/api/v1/me', { headers: { ...bearer(token), 'x-mode': mode } });
      expect(res.status).toBe(422);
      expect((await readJson<FieldErrorBody>(res)).detail).toEqual([expect.objectContaining({ loc: ['header', 'x-mode'] })]);
    }
  });
});
