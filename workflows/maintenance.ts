import { proxyActivities } from '@temporalio/workflow';
import type { Activities } from '../activities/index.js';
import { SCHEDULED_RETRIES, type ScheduledRunInput } from './contract.js';
import { retryPolicy } from './shared.js';

/** Run by the `idempotency-purge` schedule: deletes Idempotency-Key records past their 24 hours. */
export async function purgeIdempotencyKeysWorkflow(input: ScheduledRunInput = {}): Promise<{ purged: number }> {
  const { purgeExpiredIdempotencyKeys } = proxyActivities<Activities>({
    startToCloseTimeout: '1 minute',
    retry: retryPolicy(input.retry ?? SCHEDULED_RETRIES.purgeIdempotencyKeysWorkflow),
  });
  return { purged: await purgeExpiredIdempotencyKeys() };
}
