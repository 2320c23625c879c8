import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../../../test/support/testApp.js';
import { bearer, createKey, createOrg, sessionToken, uniqueEmail } from '../../../test/support/actors.js';
import { readJson } from '../../../test/support/http.js';
import { revokeApiKey } from '../apiKeys/revokeApiKey.js';

let app: TestApp;
beforeAll(async () => {
  app = await startTestApp();
});
afterAll(async () => app?.close());

interface EventPage {
  data: { type: string; livemode: boolean; data: { object: unknown } }[];
}

const revokedEvents = async (session: string, orgId: string) =>
  (await readJson<EventPage>(await app.fetch(`/api/v1/orgs/${orgId}/events?type=api_key.revoked`, { headers: bearer(session) }))).data;

describe('api_key.revoked', () => {
  it('goes only to the organisations the key acted in, as {id, prefix, name}: never its restrictions or limits', async () => {
    const session = await sessionToken(app, uniqueEmail('revoked-owner'));
    const [read, readTwice, untouched] = [
      (await createOrg(app, session, 'Read')).id,
      (await createOrg(app, session, 'Read twice')).id,
      (await createOrg(app, session, 'Untouched')).id,
    ];
    const strangerSession = await sessionToken(app, uniqueEmail('stranger'));
    const strangers = (await createOrg(app, strangerSession, 'Stranger')).id;
    const key = await createKey(app, session, {
      name: 'deploy',
      scopes: ['domains:read'],
      mode: 'live',
      monthly_spend_limit: 5_000,
      allowed_ips: [app.clientAddress],
      allowed_domains: ['example.com'],
    });
    const get = (orgId: string) => app.fetch(`/api/v1/orgs/${orgId}/domains`, { headers: bearer(key.key) });
    expect((await get(read)).status).toBe(200);
    expect((await get(readTwice)).status).toBe(200);
    expect((await get(readTwice)).status).toBe(200);
    // A request the membership check refuses is no act in that organisation.
    expect((await get(strangers)).status).toBe(403);

    await revokeApiKey({ db: app.deps.db, apiKeys: app.deps.apiKeys, keyId: key.id, reason: 'found in public source code', sourceUrl: 'https://github.com/x/y', requestId: null });

    for (const orgId of [read, readTwice]) {
      expect(await revokedEvents(session, orgId)).toEqual([
        expect.objectContaining({ type: 'api_key.revoked', livemode: true, data: { object: { id: key.id, prefix: key.prefix, name: 'deploy' } } }),
      ]);
    }
    expect(await revokedEvents(session, untouched)).toEqual([]);
    expect(await revokedEvents(strangerSession, strangers)).toEqual([]);
  });
});
