import { withTransaction, type Db } from '../../db/pool.js';
import * as contactsRepo from './contacts.repository.js';
import type { Contact, ContactFields } from './contacts.repository.js';
import { auditCallerAction } from '../../audit/auditEvents.js';
import type { Principal } from '../../auth/principal.js';
import { NotFoundError, VersionMismatchError } from '../../errors.js';
import { modeOf } from '../../db/modeScope.js';

export interface UpdateContactProps {
  db: Db;
  principal: Principal;
  orgId: string;
  contactId: string;
  /** From `If-Match`; undefined (no header, or `*`) applies the change whatever the version. */
  expectedVersion: number | undefined;
  /** Only the fields to change; at least one. */
  changes: Partial<ContactFields>;
  requestId: string;
}

/** Changes some fields of a contact and raises its version by one. */
export async function updateContact(props: UpdateContactProps): Promise<Contact> {
  const { principal } = props;
  return withTransaction(props.db, async (tx) => {
    const result = await contactsRepo.updateContact(tx, modeOf(principal.livemode), {
      orgId: props.orgId,
      id: props.contactId,
      expectedVersion: props.expectedVersion,
      changes: props.changes,
    });
    if (result.status === 'not_found') throw new NotFoundError('Contact not found');
    if (result.status === 'version_mismatch') {
      throw new VersionMismatchError({ resource: 'contact', current: result.currentVersion, expected: props.expectedVersion! });
    }
    const fields = (Object.keys(props.changes) as (keyof ContactFields)[])
      .filter((field) => props.changes[field] !== undefined)
      .map((field) => contactsRepo.CONTACT_COLUMNS[field]);
    await auditCallerAction(tx, props, {
      action: 'contact.updated',
      orgId: props.orgId,
      targetType: 'contact',
      targetId: result.contact.id,
      data: { livemode: principal.livemode, version: result.contact.version, fields },
    });
    return result.contact;
  });
}
