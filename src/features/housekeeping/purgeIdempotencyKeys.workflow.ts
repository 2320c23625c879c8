import { proxyActivities } from '@temporalio/workflow';
import type { HousekeepingActivities } from './activities.js';
import { SCHEDULED_RETRIES, type ScheduledRunInput } from '../../temporal/retries.contract.js';
import { retryPolicy } from '../../temporal/retries.workflow.js';

/** Run by the `idempotency-purge` schedule: deletes Idempotency-Key records past their 24 hours. */
export async function purgeIdempotencyKeysWorkflow(input: ScheduledRunInput = {}): Promise<{ purged: number }> {
  const { purgeExpiredIdempotencyKeys } = proxyActivities<HousekeepingActivities>({
    startToCloseTimeout: '1 minute',
    retry: retryPolicy(input.retry ?? SCHEDULED_RETRIES.purgeIdempotencyKeysWorkflow),
  });
  return { purged: await purgeExpiredIdempotencyKeys() };
}
