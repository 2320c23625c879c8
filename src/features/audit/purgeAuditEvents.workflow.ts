import { proxyActivities } from '@temporalio/workflow';
import type { AuditActivities } from './activities.js';
import { SCHEDULED_RETRIES, type ScheduledRunInput } from '../../temporal/retries.contract.js';
import { retryPolicy } from '../../temporal/retries.workflow.js';

/** Run by the `audit-purge` schedule: audit entries older than a year go. */
export async function purgeAuditEventsWorkflow(input: ScheduledRunInput = {}): Promise<{ purged: number }> {
  const { purgeOldAuditEvents } = proxyActivities<AuditActivities>({
    startToCloseTimeout: '5 minutes',
    retry: retryPolicy(input.retry ?? SCHEDULED_RETRIES.purgeAuditEventsWorkflow),
  });
  return { purged: await purgeOldAuditEvents() };
}
