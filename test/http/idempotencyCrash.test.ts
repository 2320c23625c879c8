/**
 * An api process killed while a registration is inside it: the registration's Idempotency-Key was
 * claimed and its price reserved, and the process never answered. The client's retry, sent to
 * another api, must be accepted soon and end at the same one operation and one charge. Its 202 is
 * stored while its workflow starts (src/features/domains/accepted.ts), so the process can also die
 * after storing it and before the start reached Temporal: the retry is then a replay of that 202,
 * and the replay starts the workflow rather than leaving the operation to the reconciler.
 */
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { inject } from 'vitest';
import { startTestApp, type TestApp } from '../support/testApp.js';
import { HoldingProxy } from '../support/holdingProxy.js';
import type { RunningProcess } from '../support/processes.js';
import { apiBehindProxy, killApi } from '../support/apiBehindProxy.js';
import { customerFactory, type OperationBody } from '../support/customers.js';
import { bearer, jsonHeaders } from '../support/actors.js';
import { readJson, type MessageErrorBody } from '../support/http.js';

let app: TestApp;
let temporal: HoldingProxy;
let doomed: RunningProcess | undefined;
let doomedUrl: string;

beforeAll(async () => {
  // The in-process app is the api the retry goes to, and runs the workflows of both.
  app = await startTestApp({ worker: true });
  const [host, port] = inject('temporalAddress').split(':');
  temporal = await HoldingProxy.start({ host: host!, port: Number(port) });
}, 120_000);

// Each test kills its own: its registrations wait for Temporal as long as the proxy holds it.
beforeEach(async () => {
  ({ api: doomed, url: doomedUrl } = await apiBehindProxy(app, temporal));
}, 120_000);

afterEach(() => {
  killApi(doomed);
  temporal.release();
});

afterAll(async () => {
  await temporal?.close();
  await app?.close();
});

describe('an Idempotency-Key whose api process died mid-request', () => {
  it('is taken by the retry on another api within 10 s, which answers the same registration, charged once', { timeout: 90_000 }, async () => {
    const f = customerFactory(app);
    const c = await f.customer(5_000, 'enterprise');
    const name = `crash-retry-${Date.now()}.com`;
    const body = JSON.stringify({ name, years: 1, registrant_contact_id: c.contactId });
    const idempotencyKey = `register-${name}`;
    const init = { method: 'POST', headers: { ...jsonHeaders(c.key), 'idempotency-key': idempotencyKey }, body };

    temporal.hold();
    const unanswered = fetch(`${doomedUrl}/api/v1/orgs/${c.org.id}/domains`, init).then(
      (res) => `answered ${res.status}`,
      () => 'never answered',
    );
    // Inside the process: the operation is written and its price reserved; the workflow's start waits.
    const operations = async () =>
      (await readJson<{ data: OperationBody[] }>(await app.fetch(`/api/v1/orgs/${c.org.id}/operations`, { headers: bearer(c.key) }))).data;
    await expect.poll(async () => (await operations()).map((op) => op.domain), { timeout: 20_000, interval: 100 }).toEqual([name]);
    doomed!.child.kill('SIGKILL');
    await doomed!.exited;
    const killedAt = Date.now();
    expect(await unanswered).toBe('never answered');
    temporal.release();

    const refusals: string[] = [];
    let accepted: Response | undefined;
    while (Date.now() - killedAt < 12_000) {
      const res = await app.fetch(`/api/v1/orgs/${c.org.id}/domains`, init);
      if (res.status !== 409) {
        accepted = res;
        break;
      }
      const refusal = await readJson<MessageErrorBody>(res);
      refusals.push(`${refusal.code} Retry-After ${res.headers.get('retry-after')}`);
      await new Promise((resolve) => setTimeout(resolve, 300));
    }
    expect(accepted?.status, `refused: ${refusals.join(', ')}`).toBe(202);
    expect(Date.now() - killedAt).toBeLessThanOrEqual(10_000);
    expect(refusals.every((refusal) => /^IDEMPOTENCY_KEY_IN_USE Retry-After ([1-9]|10)$/.test(refusal))).toBe(true);

    // The retry found the dead process's operation rather than starting a second one.
    const [operation] = await operations();
    expect((await readJson<OperationBody>(accepted!)).id).toBe(operation!.id);
    expect(await operations()).toHaveLength(1);
    const done = await f.pollUntilFinished(c, `/api/v1/orgs/${c.org.id}/operations/${operation!.id}`);
    expect(done.status).toBe('succeeded');
    const ledger = await readJson<{ data: { type: string }[] }>(await app.fetch(`/api/v1/orgs/${c.org.id}/billing/transactions`, { headers: bearer(c.key) }));
    expect(ledger.data.filter((entry) => entry.type === 'capture')).toHaveLength(1);
    expect(await f.balance(c)).toMatchObject({ reserved: 0, available: 5_000 - 1299 });
  });
});

describe("a registration's 202 stored before its workflow's start went through", () => {
  it('is replayed to the retry, which starts the workflow: one registration, charged once', { timeout: 90_000 }, async () => {
    const f = customerFactory(app);
    const c = await f.customer(5_000, 'enterprise');
    const name = `replay-start-${Date.now()}.com`;
    const idempotencyKey = `register-${name}`;
    const init = {
      method: 'POST',
      headers: { ...jsonHeaders(c.key), 'idempotency-key': idempotencyKey },
      body: JSON.stringify({ name, years: 1, registrant_contact_id: c.contactId }),
    };

    // Nothing the doomed api sends Temporal from here on arrives: its start never goes through.
    temporal.holdRequests();
    const unanswered = fetch(`${doomedUrl}/api/v1/orgs/${c.org.id}/domains`, init).then(
      (res) => `answered ${res.status}`,
      () => 'never answered',
    );
    const storedAnswer = async () =>
      (await app.deps.db.query<{ state: string; status: number | null }>(`SELECT state, response_status AS status FROM idempotency_keys WHERE key = $1`, [idempotencyKey])).rows;
    await expect.poll(storedAnswer, { timeout: 20_000, interval: 50 }).toEqual([{ state: 'completed', status: 202 }]);
    doomed!.child.kill('SIGKILL');
    await doomed!.exited;
    expect(await unanswered).toBe('never answered');
    temporal.release();

    const operations = async () =>
      (await readJson<{ data: OperationBody[] }>(await app.fetch(`/api/v1/orgs/${c.org.id}/operations`, { headers: bearer(c.key) }))).data;
    const [pending] = await operations();
    expect(pending).toMatchObject({ domain: name, status: 'pending' });

    const retry = await app.fetch(`/api/v1/orgs/${c.org.id}/domains`, init);
    expect(retry.status).toBe(202);
    expect(retry.headers.get('idempotent-replayed')).toBe('true');
    expect((await readJson<OperationBody>(retry)).id).toBe(pending!.id);

    // Started by the replay: the reconciler would not take it up for minutes (OPERATION_RECONCILE_GRACE).
    const done = await f.pollUntilFinished(c, `/api/v1/orgs/${c.org.id}/operations/${pending!.id}`);
    expect(done.status).toBe('succeeded');
    expect(await operations()).toHaveLength(1);
    const ledger = await readJson<{ data: { type: string }[] }>(await app.fetch(`/api/v1/orgs/${c.org.id}/billing/transactions`, { headers: bearer(c.key) }));
    expect(ledger.data.filter((entry) => entry.type === 'capture')).toHaveLength(1);
    expect(await f.balance(c)).toMatchObject({ reserved: 0, available: 5_000 - 1299 });
  });
});
