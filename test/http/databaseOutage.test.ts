/**
 * PostgreSQL going away under an app: refused connections, connections reset mid-use, a pool with no
 * free client. Each is 503 DATABASE_UNAVAILABLE with Retry-After, never a 500, and the app recovers
 * by itself. The outage is a loopback proxy the test cuts; the shared server is never touched.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { inject } from 'vitest';
import { startTestApp, type TestApp } from '../support/testApp.js';
import { startDatabaseProxy, type TcpProxy } from '../support/tcpProxy.js';
import { bearer, jsonHeaders, sessionToken, uniqueEmail } from '../support/actors.js';
import { readJson, type MessageErrorBody } from '../support/http.js';
import { SESSION_CACHE_TTL_MS } from '../../src/auth/sessionPrincipals.js';
import { ORGS_OF_USER_TTL_MS } from '../../src/features/orgs/orgsOfUser.js';

/** The session and `GET /me`'s organisations are answered from memory this long; an outage shows after it. */
const pastCaches = () => new Promise((resolve) => setTimeout(resolve, Math.max(SESSION_CACHE_TTL_MS, ORGS_OF_USER_TTL_MS) + 50));

let proxy: TcpProxy;
let app: TestApp;
let token: string;

beforeAll(async () => {
  const database = await startDatabaseProxy(inject('databaseUrl'));
  proxy = database.proxy;
  app = await startTestApp({ env: { DATABASE_URL: database.url } });
  token = await sessionToken(app, uniqueEmail('outage'));
});
afterAll(async () => {
  await app?.close();
  await proxy?.close();
});

/** A light load of reads and writes, as a dashboard and a script would send during an outage. */
function lightLoad() {
  return Promise.all([
    ...Array.from({ length: 4 }, () => app.fetch('/api/v1/me', { headers: bearer(token) })),
    ...Array.from({ length: 4 }, () => app.fetch('/api/v1/orgs', { headers: bearer(token) })),
    ...Array.from({ length: 2 }, () => app.fetch('/api/v1/orgs', { method: 'POST', headers: jsonHeaders(token), body: '{"name":"During outage"}' })),
  ]);
}

async function expectAllUnavailable(responses: Response[]) {
  for (const res of responses) {
    expect(res.status).toBe(503);
    expect(Number(res.headers.get('retry-after'))).toBeGreaterThan(0);
    const body = await readJson<MessageErrorBody>(res);
    expect(body.code).toBe('DATABASE_UNAVAILABLE');
    expect(body.detail).not.toMatch(/ECONN|127\.0\.0\.1|terminated/);
  }
}

async function expectRecovered() {
  await expect.poll(async () => (await app.fetch('/api/v1/me', { headers: bearer(token) })).status, { timeout: 10_000, interval: 200 }).toBe(200);
}

describe('PostgreSQL unreachable', () => {
  it('answers 503 DATABASE_UNAVAILABLE while connections are refused, and /readyz says postgres is down', async () => {
    expect((await app.fetch('/api/v1/me', { headers: bearer(token) })).status).toBe(200);
    await proxy.refuse();
    try {
      await pastCaches();
      await expectAllUnavailable(await lightLoad());
      const ready = await app.fetch('/readyz');
      expect(ready.status).toBe(503);
      expect(((await ready.json()) as { checks: Record<string, string> }).checks.postgres).toBe('down');
    } finally {
      await proxy.restore();
    }
    await expectRecovered();
  });

  it('answers 503 when connections are reset, pooled ones included', async () => {
    expect((await app.fetch('/api/v1/me', { headers: bearer(token) })).status).toBe(200);
    await proxy.reset();
    try {
      await pastCaches();
      await expectAllUnavailable(await lightLoad());
    } finally {
      await proxy.restore();
    }
    await expectRecovered();
  });

  it('answers 503 when every pooled connection is taken', async () => {
    const max = app.deps.db.options.max ?? 10;
    const held = await Promise.all(Array.from({ length: max }, () => app.deps.db.connect()));
    try {
      await pastCaches();
      await expectAllUnavailable([await app.fetch('/api/v1/me', { headers: bearer(token) })]);
    } finally {
      for (const client of held) client.release();
    }
    await expectRecovered();
  });
});
