import { withTransaction, type Db } from '../../db/pool.js';
import { insertContact, type Contact, type ContactFields } from './contacts.repository.js';
import { auditCallerAction } from '../../audit/auditEvents.js';
import type { Principal } from '../../auth/principal.js';
import { newId } from '../../ids.js';

export interface CreateContactProps {
  db: Db;
  principal: Principal;
  orgId: string;
  fields: ContactFields;
  requestId: string;
}

/** Creates a contact in the caller's mode, at version 1. The audit event carries no personal data. */
export async function createContact(props: CreateContactProps): Promise<Contact> {
  const { principal } = props;
  return withTransaction(props.db, async (tx) => {
    const contact = await insertContact(tx, principal, { id: newId('ct'), orgId: props.orgId, fields: props.fields });
    await auditCallerAction(tx, props, {
      action: 'contact.created',
      orgId: props.orgId,
      targetType: 'contact',
      targetId: contact.id,
      data: { livemode: principal.livemode, version: contact.version },
    });
    return contact;
  });
}
