/**
 * Load against the real api and real worker processes (loopback only, bounded in time and count):
 * several clients register test-mode domains, create contacts and DNS records for LOAD_TEST_DURATION_MS
 * (default 60 s); then the money must add up. Each run is a file of its own, with its own app and task
 * queue, so that vitest runs them side by side.
 */
import { afterAll, beforeAll } from 'vitest';
import { startTestApp, type TestApp } from '../support/testApp.js';
import type { RunningProcess } from '../support/processes.js';
import { startWorkerProcess } from '../support/workerProcess.js';
import { scheduleId } from '../../src/worker/schedules.js';
import { assertLedgerInvariants } from '../support/ledgerInvariants.js';
import type { ClientRun } from '../support/ledgerInvariants.js';

export const DURATION_MS = Number(process.env.LOAD_TEST_DURATION_MS ?? 60_000);

export interface LoadHarness {
  app(): TestApp;
  /** A worker process on the app's task queue; the harness kills those still running at the end. */
  startWorker(): Promise<RunningProcess>;
  workers: RunningProcess[];
  assertLedger(runs: ClientRun[]): Promise<void>;
}

/** Registers the file's hooks: the api in this process, workers as processes of their own. */
export function useLoadHarness(): LoadHarness {
  let app: TestApp | undefined;
  const workers: RunningProcess[] = [];
  beforeAll(async () => {
    app = await startTestApp();
  });
  afterAll(async () => {
    for (const worker of workers) if (worker.child.exitCode === null) worker.child.kill('SIGKILL');
    await app?.deps.temporal.client.schedule.getHandle(scheduleId('operation-reconciler', app.deps.config)).delete().catch(() => undefined);
    await app?.close();
  });
  const current = () => {
    if (!app) throw new Error('the load harness app is not started');
    return app;
  };
  return {
    app: current,
    workers,
    async startWorker() {
      const worker = await startWorkerProcess(current().deps.config.temporal.taskQueue);
      workers.push(worker);
      return worker;
    },
    async assertLedger(runs) {
      const a = current();
      await assertLedgerInvariants({ db: a.deps.db, fetch: (pathname, init) => a.fetch(pathname, init) }, runs);
    },
  };
}
