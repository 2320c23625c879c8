import { withTransaction, type Db } from '../../db/pool.js';
import * as contactsRepo from './contacts.repository.js';
import { auditCallerAction } from '../../audit/auditEvents.js';
import type { Principal } from '../../auth/principal.js';
import { ConflictError, NotFoundError, VersionMismatchError } from '../../errors.js';
import { modeOf } from '../../db/modeScope.js';

export interface DeleteContactProps {
  db: Db;
  principal: Principal;
  orgId: string;
  contactId: string;
  /** From `If-Match`; undefined (no header, or `*`) deletes whatever the version. */
  expectedVersion: number | undefined;
  requestId: string;
}

/**
 * Deletes a contact no domain uses (hard delete; the audit event remains). The row is locked first,
 * so a domain cannot start using it between the check and the delete: such an insert waits for the
 * lock, and then fails on domain_contacts' foreign key.
 */
export async function deleteContact(props: DeleteContactProps): Promise<void> {
  const { principal } = props;
  await withTransaction(props.db, async (tx) => {
    const contact = await contactsRepo.findContact(tx, modeOf(principal.livemode), { orgId: props.orgId, id: props.contactId, forUpdate: true });
    if (!contact) throw new NotFoundError('Contact not found');
    if (props.expectedVersion !== undefined && props.expectedVersion !== contact.version) {
      throw new VersionMismatchError({ resource: 'contact', current: contact.version, expected: props.expectedVersion });
    }
    if (await contactsRepo.isContactInUse(tx, modeOf(principal.livemode), contact.id)) {
      throw new ConflictError('CONTACT_IN_USE', 'A domain uses this contact; give the domain another contact first');
    }
    await contactsRepo.deleteContact(tx, modeOf(principal.livemode), { orgId: props.orgId, id: contact.id });
    await auditCallerAction(tx, props, {
      action: 'contact.deleted',
      orgId: props.orgId,
      targetType: 'contact',
      targetId: contact.id,
      data: { livemode: principal.livemode, version: contact.version, registrar_contact_id: contact.registrarContactId },
    });
  });
}
