import type { Queryable } from '../../db/pool.js';
import { insertContact, type Contact, type ContactFields } from './contacts.repository.js';
import { auditCallerAction } from '../../audit/auditEvents.js';
import type { Principal } from '../../auth/principal.js';
import { newId } from '../../ids.js';
import { modeOf } from '../../db/modeScope.js';

export interface CreateContactProps {
  principal: Principal;
  orgId: string;
  fields: ContactFields;
  requestId: string;
}

/**
 * Creates a contact in the caller's mode, at version 1, in the caller's transaction (the route's,
 * which also stores its answer). The audit event carries no personal data.
 */
export async function createContactWithin(tx: Queryable, props: CreateContactProps): Promise<Contact> {
  const { principal } = props;
  const contact = await insertContact(tx, modeOf(principal.livemode), { id: newId('ct'), orgId: props.orgId, fields: props.fields });
  await auditCallerAction(tx, props, {
    action: 'contact.created',
    orgId: props.orgId,
    targetType: 'contact',
    targetId: contact.id,
    data: { livemode: principal.livemode, version: contact.version },
  });
  return contact;
}
