/** The load of ledgerInvariants.test.ts with its worker SIGKILLed mid-run, as a crashed machine would be replaced. */
import { describe, expect, it } from 'vitest';
import { runLoad } from '../support/loadClients.js';
import { DURATION_MS, useLoadHarness } from './loadHarness.js';

const load = useLoadHarness();

describe('under load', () => {
  it('with the worker killed (SIGKILL) mid-run and another started, the ledger still adds up', { timeout: DURATION_MS + 240_000 }, async () => {
    await load.startWorker();
    const app = load.app();
    const runs = await runLoad({
      app,
      target: app,
      durationMs: DURATION_MS,
      midRun: async (third) => {
        await third;
        const victim = load.workers.at(-1)!;
        victim.child.kill('SIGKILL');
        expect(await victim.exited).toBeNull();
        await load.startWorker();
      },
    });
    await load.assertLedger(runs);
  });
});
