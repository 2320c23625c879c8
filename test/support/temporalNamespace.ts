import { Connection } from '@temporalio/client';
import { msToTs } from '@temporalio/common/lib/time.js';
import { inject } from 'vitest';
import { randomBase62 } from '../../src/ids.js';

/**
 * A Temporal namespace of a test file's own, for a test that counts a schedule's runs and lists what
 * it started: nothing another test file starts can show up there. (Schedule ids already carry the
 * task queue, so no other test can re-point the schedule itself: `src/worker/schedules.ts`.)
 */
export async function createTestNamespace(label: string): Promise<string> {
  const namespace = `${label}-${randomBase62(8).toLowerCase()}`;
  const connection = await Connection.connect({ address: inject('temporalAddress') });
  try {
    await connection.workflowService.registerNamespace({ namespace, workflowExecutionRetentionPeriod: msToTs('1 day') });
    const deadline = Date.now() + 20_000;
    for (;;) {
      try {
        await connection.workflowService.describeNamespace({ namespace });
        return namespace;
      } catch (err) {
        if (Date.now() > deadline) throw err;
        await new Promise((resolve) => setTimeout(resolve, 200));
      }
    }
  } finally {
    await connection.close();
  }
}
