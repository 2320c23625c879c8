import type { Client } from '@temporalio/client';
import { ensureSchedules } from '../../src/worker/schedules.js';
import type { Config } from '../../src/config.js';

/**
 * Ensures a test app's schedules and returns a function deleting them: they are named after the
 * test's task queue, which no worker serves once the test is over.
 */
export async function ensureTestSchedules(client: Client, config: Config): Promise<{ ids: string[]; remove: () => Promise<void> }> {
  const ids = await ensureSchedules(client, config);
  return {
    ids,
    remove: async () => {
      for (const id of ids) await client.schedule.getHandle(id).delete().catch(() => undefined);
    },
  };
}
