import { describe, it } from 'vitest';
import { runLoad } from '../support/loadClients.js';
import { DURATION_MS, useLoadHarness } from './loadHarness.js';

const load = useLoadHarness();

describe('under load', () => {
  it('every accepted operation ends, and the ledger adds up', { timeout: DURATION_MS + 180_000 }, async () => {
    const worker = await load.startWorker();
    const app = load.app();
    const runs = await runLoad({ app, target: app, durationMs: DURATION_MS });
    await load.assertLedger(runs);
    worker.child.kill('SIGTERM');
    await worker.exited;
  });
});
