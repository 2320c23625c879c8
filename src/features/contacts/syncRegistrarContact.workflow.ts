import { ApplicationFailure, proxyActivities } from '@temporalio/workflow';
import type { ContactActivities } from './activities.js';
import { CONTACT_SYNC_RETRIES, type SyncRegistrarContactInput } from './contacts.contract.js';
import { failureOf, PERMANENT_REGISTRAR_CODES, retryPolicy } from '../../temporal/retries.workflow.js';

/**
 * Started when a live contact changes: updates the contact at the registrar (DNSimple PATCH
 * /contacts/{id}) when the registrar holds it. Our copy already has the change; a refusal is
 * reported to the operator (audit event, error log) and the workflow fails with it.
 */
export async function syncRegistrarContactWorkflow(input: SyncRegistrarContactInput): Promise<{ status: string }> {
  const retries = { ...CONTACT_SYNC_RETRIES, ...input.retries };
  const contactSync = proxyActivities<ContactActivities>({ startToCloseTimeout: '30 seconds', retry: retryPolicy(retries.registrar, PERMANENT_REGISTRAR_CODES) });
  const bookkeeping = proxyActivities<ContactActivities>({ startToCloseTimeout: '30 seconds', retry: retryPolicy(retries.bookkeeping) });
  try {
    return await contactSync.syncContactToRegistrar({ livemode: input.livemode, contactId: input.contactId });
  } catch (err) {
    const failure = failureOf(err);
    await bookkeeping.reportContactSyncFailure({ livemode: input.livemode, orgId: input.orgId, contactId: input.contactId, version: input.version, failure });
    throw ApplicationFailure.nonRetryable(failure.detail, failure.code);
  }
}
