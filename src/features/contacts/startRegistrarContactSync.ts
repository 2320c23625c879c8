import type { PlatformDeps } from '../../platformDeps.js';
import type { Contact } from './contacts.repository.js';
import { startWorkflow } from '../../workflows.js';
import { CONTACT_SYNC_RETRIES, type SyncRegistrarContactInput } from './contacts.contract.js';

export interface StartRegistrarContactSyncProps {
  deps: Pick<PlatformDeps, 'temporal' | 'config' | 'logger'>;
  livemode: boolean;
  contact: Contact;
}

/**
 * After a change to a live contact the registrar holds, starts the workflow that sends it there
 * (src/features/contacts/syncRegistrarContact.workflow.ts). Asynchronous on purpose: the change is saved and answered at once, a
 * registrar outage is waited out with retries instead of failing the PATCH, and a refusal reaches
 * the operator (audit, error log). Should the start itself fail, nothing is lost either: the stored
 * registrar version stays behind, so the next registration or transfer using the contact sends it.
 */
export async function startRegistrarContactSync(props: StartRegistrarContactSyncProps): Promise<void> {
  const { contact } = props;
  if (!props.livemode || contact.registrarContactId === null) return;
  const input: SyncRegistrarContactInput = { livemode: true, orgId: contact.orgId, contactId: contact.id, version: contact.version, retries: CONTACT_SYNC_RETRIES };
  try {
    await startWorkflow(props.deps.temporal.client, 'syncRegistrarContactWorkflow', {
      workflowId: `contact-sync:${contact.id}:v${contact.version}`,
      taskQueue: props.deps.config.temporal.taskQueue,
      args: [input],
      workflowIdConflictPolicy: 'USE_EXISTING',
    });
  } catch (err) {
    props.deps.logger.warn({ err, contactId: contact.id, version: contact.version }, 'contact change not sent to the registrar yet; the next registration sends it');
  }
}
