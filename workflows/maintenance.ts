import { proxyActivities } from '@temporalio/workflow';
import type { Activities } from '../activities/index.js';

const { purgeExpiredIdempotencyKeys } = proxyActivities<Activities>({
  startToCloseTimeout: '1 minute',
  retry: { initialInterval: '5 seconds', maximumAttempts: 5 },
});

/** Run by the `idempotency-purge` schedule: deletes Idempotency-Key records past their 24 hours. */
export async function purgeIdempotencyKeysWorkflow(): Promise<{ purged: number }> {
  return { purged: await purgeExpiredIdempotencyKeys() };
}
