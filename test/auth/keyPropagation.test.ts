import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../support/testApp.js';
import { bearer, createKey, sessionToken, uniqueEmail } from '../support/actors.js';
import { timeUntilRefused } from '../support/keyRefusal.js';
import { revokeApiKey } from '../../src/features/apiKeys/revokeApiKey.js';
import { KEY_INVALIDATION_CHANNEL } from '../../src/auth/apiKeyVerifier.js';

// Two api processes of one deployment: same database, same Redis, same hash secret.
const shared = { KEY_HASH_SECRET: 'propagation-test-secret-0123456789abcdef' };
let apiA: TestApp;
let apiB: TestApp;
let session: string;

beforeAll(async () => {
  apiA = await startTestApp({ env: shared });
  apiB = await startTestApp({ env: { ...shared, DATA_DIR: apiA.deps.config.dataDir } });
  session = await sessionToken(apiA, uniqueEmail('propagation'));
});
afterAll(async () => {
  await apiB?.close();
  await apiA?.close();
});

describe('deleting or revoking a key reaches every api process', () => {
  it('a key deleted through one process is refused by the other within 2 seconds', async () => {
    const created = await createKey(apiA, session, { name: 'spread', scopes: ['keys:read'] });
    // Both processes have verified (and cached) the key.
    expect((await apiA.fetch('/api/v1/me', { headers: bearer(created.key) })).status).toBe(200);
    expect((await apiB.fetch('/api/v1/me', { headers: bearer(created.key) })).status).toBe(200);

    const started = Date.now();
    const del = await apiA.fetch(`/api/v1/me/api-keys/${created.id}`, { method: 'DELETE', headers: bearer(session) });
    expect(del.status).toBe(204);
    const onB = await timeUntilRefused(apiB, created.key, started);
    console.log(`deleted key refused by the other process after ${onB.refusedMs} ms (last accepted request sent after ${onB.lastAcceptedSentMs} ms)`);
    expect(onB.code).toBe('INVALID_TOKEN');
    expect(onB.lastAcceptedSentMs).toBeLessThan(2_000);
  });

  it('a revoked key is refused by every process with API_KEY_REVOKED within 2 seconds', async () => {
    const created = await createKey(apiA, session, { name: 'leak', scopes: ['keys:read'] });
    expect((await apiB.fetch('/api/v1/me', { headers: bearer(created.key) })).status).toBe(200);
    const started = Date.now();
    await revokeApiKey({
      db: apiA.deps.db,
      apiKeys: apiA.deps.apiKeys,
      keyId: created.id,
      reason: 'leaked',
      sourceUrl: null,
      requestId: null,
    });
    const onB = await timeUntilRefused(apiB, created.key, started);
    expect(onB.code).toBe('API_KEY_REVOKED');
    expect(onB.lastAcceptedSentMs).toBeLessThan(2_000);
    // Revoking again changes nothing.
    const again = await revokeApiKey({
      db: apiA.deps.db,
      apiKeys: apiA.deps.apiKeys,
      keyId: created.id,
      reason: 'other',
      sourceUrl: null,
      requestId: null,
    });
    expect(again).toBeUndefined();
  });

  it('a key deleted while the other process misses the invalidation message is still refused there within 2 seconds', async () => {
    const created = await createKey(apiA, session, { name: 'lost message', scopes: ['keys:read'] });
    // B stops hearing invalidations (a dropped subscription), after caching the key.
    await apiB.deps.subscriber.unsubscribe(KEY_INVALIDATION_CHANNEL);
    try {
      expect((await apiB.fetch('/api/v1/me', { headers: bearer(created.key) })).status).toBe(200);
      const started = Date.now();
      expect((await apiA.fetch(`/api/v1/me/api-keys/${created.id}`, { method: 'DELETE', headers: bearer(session) })).status).toBe(204);
      const onB = await timeUntilRefused(apiB, created.key, started);
      console.log(`deleted key refused by a process that missed the message after ${onB.refusedMs} ms (last accepted request sent after ${onB.lastAcceptedSentMs} ms)`);
      expect(onB.code).toBe('INVALID_TOKEN');
      expect(onB.lastAcceptedSentMs).toBeLessThan(2_000);
    } finally {
      await apiB.deps.subscriber.subscribe(KEY_INVALIDATION_CHANNEL);
    }
  });
});
