import { mkdtemp } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { startTestApp, type TestApp } from '../support/testApp.js';
import { bearer } from '../support/actors.js';
import { customerFactory, type OperationBody } from '../support/customers.js';
import { readJson } from '../support/http.js';
import { runTs, type RunningProcess } from '../support/processes.js';

let app: TestApp;
const workers: RunningProcess[] = [];
beforeAll(async () => {
  app = await startTestApp(); // the api only: workers run as separate processes here
});
afterAll(async () => {
  for (const worker of workers) if (worker.child.exitCode === null) worker.child.kill('SIGKILL');
  await app?.close();
});

async function startWorkerProcess(): Promise<RunningProcess> {
  const worker = runTs('src/main.ts', ['--role', 'worker'], {
    NODE_ENV: 'test',
    LOG_LEVEL: 'info',
    DATABASE_URL: inject('databaseUrl'),
    REDIS_URL: inject('redisUrl'),
    TEMPORAL_ADDRESS: inject('temporalAddress'),
    TEMPORAL_TASK_QUEUE: app.deps.config.temporal.taskQueue,
    DATA_DIR: await mkdtemp(path.join(os.tmpdir(), 'domain-service-worker-')),
    PAYLOAD_ENCRYPTION_KEYS: inject('payloadEncryptionKeys'),
  });
  workers.push(worker);
  await worker.waitForOutput(/"msg":"worker polling"/, 60_000);
  return worker;
}

describe('a worker that dies mid-registration', () => {
  it('leaves the registration to the next worker, which finishes it with one charge', { timeout: 120_000 }, async () => {
    const f = customerFactory(app);
    const c = await f.customer(2_000);
    const first = await startWorkerProcess();
    // `-flaky`: the registrar answers 503 twice, so the registration is mid-retry for a few seconds.
    const name = `phoenix-${Date.now()}-flaky.com`;
    const res = await f.register(c, { name, years: 1, registrant_contact_id: c.contactId }, `crash-${name}`);
    const location = res.headers.get('location')!;
    await expect
      .poll(async () => (await readJson<OperationBody>(await app.fetch(location, { headers: bearer(c.key) }))).status, { timeout: 20_000, interval: 50 })
      .toBe('running');

    first.child.kill('SIGKILL');
    expect(await first.exited).toBeNull();
    expect((await readJson<OperationBody>(await app.fetch(location, { headers: bearer(c.key) }))).status).toBe('running');

    await startWorkerProcess();
    const done = await f.pollUntilFinished(c, location);
    expect(done.status).toBe('succeeded');
    expect(await f.balance(c)).toMatchObject({ available: 2_000 - 1299, reserved: 0 });
    const ledger = await readJson<{ data: { type: string }[] }>(await app.fetch(`/api/v1/orgs/${c.org.id}/billing/transactions`, { headers: bearer(c.key) }));
    expect(ledger.data.filter((e) => e.type === 'capture')).toHaveLength(1);
  });
});
