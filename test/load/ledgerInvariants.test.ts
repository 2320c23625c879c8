/**
 * Load against the real api and a real worker process (loopback only, bounded in time and count):
 * several clients register test-mode domains, create contacts and DNS records for LOAD_TEST_DURATION_MS
 * (default 60 s); then the money must add up. The second run SIGKILLs the worker mid-load and starts
 * another, as a crashed machine would be replaced.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../support/testApp.js';
import type { RunningProcess } from '../support/processes.js';
import { startWorkerProcess } from '../support/workerProcess.js';
import { scheduleId } from '../../src/worker/schedules.js';
import { assertLedgerInvariants } from '../support/ledgerInvariants.js';
import { runLoad } from '../support/loadClients.js';

const DURATION_MS = Number(process.env.LOAD_TEST_DURATION_MS ?? 60_000);

let app: TestApp;
const workers: RunningProcess[] = [];
beforeAll(async () => {
  app = await startTestApp(); // the api only; workers run as processes
});
afterAll(async () => {
  for (const worker of workers) if (worker.child.exitCode === null) worker.child.kill('SIGKILL');
  await app?.deps.temporal.client.schedule.getHandle(scheduleId('operation-reconciler', app.deps.config)).delete().catch(() => undefined);
  await app?.close();
});

async function startWorker(): Promise<RunningProcess> {
  const worker = await startWorkerProcess(app.deps.config.temporal.taskQueue);
  workers.push(worker);
  return worker;
}


describe('under load', () => {
  it('every accepted operation ends, and the ledger adds up', { timeout: DURATION_MS + 180_000 }, async () => {
    const worker = await startWorker();
    const runs = await runLoad({ app, target: app, durationMs: DURATION_MS });
    await assertLedgerInvariants({ db: app.deps.db, fetch: (pathname, init) => app.fetch(pathname, init) }, runs);
    worker.child.kill('SIGTERM');
    await worker.exited;
  });

  it('with the worker killed (SIGKILL) mid-run and another started, the ledger still adds up', { timeout: DURATION_MS + 240_000 }, async () => {
    await startWorker();
    const runs = await runLoad({
      app,
      target: app,
      durationMs: DURATION_MS,
      midRun: async (third) => {
        await third;
        const victim = workers.at(-1)!;
        victim.child.kill('SIGKILL');
        expect(await victim.exited).toBeNull();
        await startWorker();
      },
    });
    await assertLedgerInvariants({ db: app.deps.db, fetch: (pathname, init) => app.fetch(pathname, init) }, runs);
  });
});
