/**
 * An api process killed while a registration is inside it: the registration's Idempotency-Key was
 * claimed and its price reserved, and the process never answered. The client's retry, sent to
 * another api, must be accepted soon and end at the same one operation and one charge.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { inject } from 'vitest';
import { startTestApp, type TestApp } from '../support/testApp.js';
import { HoldingProxy } from '../support/holdingProxy.js';
import { runTs, type RunningProcess } from '../support/processes.js';
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
  // Its registrations wait for Temporal's answers as long as the proxy holds them.
  doomed = runTs('src/main.ts', ['--role', 'api'], {
    NODE_ENV: 'test',
    LOG_LEVEL: 'info',
    PORT: '0',
    DATABASE_URL: inject('databaseUrl'),
    REDIS_URL: inject('redisUrl'),
    TEMPORAL_ADDRESS: `127.0.0.1:${temporal.port}`,
    TEMPORAL_TASK_QUEUE: app.deps.config.temporal.taskQueue,
    PAYLOAD_ENCRYPTION_KEYS: inject('payloadEncryptionKeys'),
    // The in-process app's data dir: the same key-hash secret, so the same API keys verify.
    DATA_DIR: app.deps.config.dataDir,
    REGISTRAR_CHECK_PER_MINUTE: '100000',
  });
  await doomed.waitForOutput(/"msg":"api listening"/, 90_000);
  const url = /"url":"(http:\/\/[^"]+)"[^\n]*"msg":"api listening"/.exec(doomed.output())?.[1];
  if (!url) throw new Error(`no url in the api's log:\n${doomed.output()}`);
  doomedUrl = url;
}, 120_000);

afterAll(async () => {
  if (doomed && doomed.child.exitCode === null && doomed.child.signalCode === null) doomed.child.kill('SIGKILL');
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
