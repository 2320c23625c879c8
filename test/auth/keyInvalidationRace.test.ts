import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { startTestApp, type TestApp } from '../support/testApp.js';
import { bearer, createKey, sessionToken, uniqueEmail } from '../support/actors.js';
import { timeUntilRefused } from '../support/keyRefusal.js';
import { HoldingProxy } from '../support/holdingProxy.js';
import { KEY_INVALIDATION_CHANNEL } from '../../src/auth/apiKeyVerifier.js';

// Two api processes of one deployment; B reaches PostgreSQL through a proxy that can hold its replies.
const shared = { KEY_HASH_SECRET: 'race-test-secret-0123456789abcdef0123' };
let proxy: HoldingProxy;
let apiA: TestApp;
let apiB: TestApp;

beforeAll(async () => {
  const database = new URL(inject('databaseUrl'));
  proxy = await HoldingProxy.start({ host: database.hostname, port: Number(database.port || 5432) });
  apiA = await startTestApp({ env: shared });
  apiB = await startTestApp({ env: { ...shared, DATABASE_URL: proxy.url(inject('databaseUrl')), DATA_DIR: apiA.deps.config.dataDir } });
});
afterAll(async () => {
  await apiB?.close();
  await apiA?.close();
  await proxy?.close();
});

describe('a key lookup that overlaps the key being deleted', () => {
  it('is not cached: the deleted key is refused within 2 seconds once the late database reply arrives', async () => {
    const session = await sessionToken(apiA, uniqueEmail('race'));
    const created = await createKey(apiA, session, { name: 'racing', scopes: ['keys:read'] });
    // Warm B's pool: the connection is open, so what gets held is the lookup's answer, not a handshake.
    await apiB.deps.db.query('SELECT 1');

    // B looks the key up; PostgreSQL answers "active", but the answer is held on its way back.
    proxy.hold();
    const lookup = apiB.fetch('/api/v1/me', { headers: bearer(created.key) });
    await proxy.waitForHeldReply();

    // Meanwhile the key is deleted through A, and the invalidation reaches B: B's subscriber hands the
    // message to its key verifier (which listened first, and evicts at once) before to this listener.
    const invalidatedOnB = new Promise<void>((resolve) =>
      apiB.deps.subscriber.on('message', (channel: string, keyId: string) => channel === KEY_INVALIDATION_CHANNEL && keyId === created.id && resolve()),
    );
    const del = await apiA.fetch(`/api/v1/me/api-keys/${created.id}`, { method: 'DELETE', headers: bearer(session) });
    expect(del.status).toBe(204);
    await invalidatedOnB;

    // The stale reply arrives after the invalidation.
    const released = Date.now();
    proxy.release();
    // The overlapping lookup is judged again after the announcement, so even it is refused.
    expect((await lookup).status).toBe(401);

    const onB = await timeUntilRefused(apiB, created.key, released);
    const onA = await timeUntilRefused(apiA, created.key, released);
    expect(onB).toMatchObject({ code: 'INVALID_TOKEN' });
    expect(onB.lastAcceptedSentMs).toBeLessThan(2_000);
    expect(onA).toMatchObject({ code: 'INVALID_TOKEN' });
    expect(onA.lastAcceptedSentMs).toBeLessThan(2_000);
  });
});
