import { ApplicationFailure, proxyActivities } from '@temporalio/workflow';
import type { Activities } from '../activities/index.js';
import type { SyncRegistrarContactInput } from './contract.js';
import { failureOf, PERMANENT_REGISTRAR_CODES } from './shared.js';

// Registrar outages are waited out for a while; after that the next registration or transfer using
// the contact sends the change anyway (its stored registrar version is behind).
const contactSync = proxyActivities<Activities>({
  startToCloseTimeout: '30 seconds',
  retry: { initialInterval: '5 seconds', backoffCoefficient: 2, maximumInterval: '10 minutes', maximumAttempts: 20, nonRetryableErrorTypes: PERMANENT_REGISTRAR_CODES },
});

const bookkeeping = proxyActivities<Activities>({
  startToCloseTimeout: '30 seconds',
  retry: { initialInterval: '1 second', backoffCoefficient: 2, maximumInterval: '30 seconds' },
});

/**
 * Started when a live contact changes: updates the contact at the registrar (DNSimple PATCH
 * /contacts/{id}) when the registrar holds it. Our copy already has the change; a refusal is
 * reported to the operator (audit event, error log) and the workflow fails with it.
 */
export async function syncRegistrarContactWorkflow(input: SyncRegistrarContactInput): Promise<{ status: string }> {
  try {
    return await contactSync.syncContactToRegistrar({ livemode: input.livemode, contactId: input.contactId });
  } catch (err) {
    const failure = failureOf(err);
    await bookkeeping.reportContactSyncFailure({ ...input, failure });
    throw ApplicationFailure.nonRetryable(failure.detail, failure.code);
  }
}
