/**
 * A request whose Idempotency-Key was claimed, then PostgreSQL went away before it was answered: it is
 * 503, and its key cannot be released (the database is what failed). Once PostgreSQL is back, the
 * client's retry must not be refused for long. The outage is a loopback proxy the test cuts.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { inject } from 'vitest';
import { startTestApp, type TestApp } from '../support/testApp.js';
import { testWriteRoute } from '../support/testRoutes.js';
import { startDatabaseProxy, type TcpProxy } from '../support/tcpProxy.js';
import { bearer, sessionToken, uniqueEmail } from '../support/actors.js';
import { readJson, type MessageErrorBody } from '../support/http.js';

/** While set, a run waits here, its key claimed, until the test lets it read the database. */
let gate: { opened: Promise<void>; open: () => void } | undefined;
let runs = 0;
const readsDatabaseRoute = testWriteRoute('reads-database', 'Reads the database once the test lets it', async () => {
  runs += 1;
  await gate?.opened;
  await app.deps.db.query('SELECT 1');
  return { run: runs };
});

let proxy: TcpProxy;
let app: TestApp;

beforeAll(async () => {
  const database = await startDatabaseProxy(inject('databaseUrl'));
  proxy = database.proxy;
  app = await startTestApp({ env: { DATABASE_URL: database.url }, extraRoutes: [readsDatabaseRoute] });
});
afterAll(async () => {
  gate?.open();
  await app?.close();
  await proxy?.close();
});

describe('an Idempotency-Key whose request met a database outage', () => {
  it('is free for the retry within 10 s of the 503, once PostgreSQL is back', { timeout: 40_000 }, async () => {
    const token = await sessionToken(app, uniqueEmail('outage-key'));
    const headers = { ...bearer(token), 'idempotency-key': `outage-${Date.now()}` };
    const send = () => app.fetch('/test/reads-database', { method: 'POST', headers });

    let open!: () => void;
    gate = { opened: new Promise<void>((resolve) => (open = resolve)), open: () => open() };
    const first = send();
    await expect.poll(() => runs).toBe(1);
    await proxy.refuse();
    let failedAt: number;
    try {
      gate.open();
      gate = undefined;
      const failed = await first;
      failedAt = Date.now();
      expect(failed.status).toBe(503);
      expect((await readJson<MessageErrorBody>(failed)).code).toBe('DATABASE_UNAVAILABLE');
    } finally {
      await proxy.restore();
    }

    // Retried as a client would, until the retry runs; answers meanwhile are 409 IN_USE (the lease
    // has not run out yet) or 503 (the pool is reconnecting).
    const seen: string[] = [];
    let retried: Response | undefined;
    while (Date.now() - failedAt < 12_000) {
      const res = await send();
      if (res.status === 201) {
        retried = res;
        break;
      }
      seen.push(`${res.status} ${(await readJson<MessageErrorBody>(res)).code}`);
      await new Promise((resolve) => setTimeout(resolve, 300));
    }
    expect(retried?.status, `answers before it ran: ${seen.join(', ')}`).toBe(201);
    expect(Date.now() - failedAt).toBeLessThanOrEqual(10_000);
    expect(seen.every((answer) => /^(409 IDEMPOTENCY_KEY_IN_USE|503 DATABASE_UNAVAILABLE)$/.test(answer))).toBe(true);
  });
});
