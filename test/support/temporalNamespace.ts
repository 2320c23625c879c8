import { Connection } from '@temporalio/client';
import { msToTs } from '@temporalio/common/lib/time.js';
import { inject } from 'vitest';
import { randomBase62 } from '../../src/ids.js';

/**
 * A Temporal namespace of a test file's own. Schedules have fixed ids (`leak-scan`) and are shared
 * by everything in a namespace, so a test that triggers one runs in its own namespace: no other
 * test file can re-point the schedule at its task queue in the meantime.
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
