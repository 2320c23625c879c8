import { withTransaction, type Db } from '../../db/pool.js';
import type { Mode } from '../../db/modeScope.js';
import { lockContactForRegistrar, setRegistrarContact, type Contact } from './contacts.repository.js';
import type { ContactDetails, Registrar } from '../../registrar/port.js';

/** A contact as the registrar port takes it. */
export function contactDetails(contact: Contact): ContactDetails {
  return {
    first_name: contact.firstName,
    last_name: contact.lastName,
    ...(contact.organization ? { organization: contact.organization } : {}),
    email: contact.email,
    phone: contact.phone,
    address1: contact.address1,
    ...(contact.address2 ? { address2: contact.address2 } : {}),
    city: contact.city,
    ...(contact.state ? { state: contact.state } : {}),
    postal_code: contact.postalCode,
    country: contact.country,
  };
}

export interface EnsureRegistrarContactProps {
  db: Db;
  registrar: Pick<Registrar, 'syncContact'>;
  mode: Mode;
  contactId: string;
  /** Only sends when the registrar already holds the contact (a change to pass on); never creates it. */
  onlyIfKnown?: boolean;
}

export type RegistrarContactSync =
  | { status: 'current'; registrarContactId: string; version: number }
  | { status: 'synced'; registrarContactId: string; version: number }
  | { status: 'not_at_registrar' }
  | { status: 'gone' };

/**
 * The contact's id at the registrar, creating the contact there the first time and sending a change
 * the registrar has not seen (its `version` ahead of the one stored beside the id). The row stays
 * locked while the registrar is called, so concurrent registrations with one contact create it once
 * and a retried activity finds the id stored by the attempt before. A create whose answer is lost
 * (timeout after DNSimple created it) can still leave one unused contact upstream: DNSimple's
 * contacts endpoint takes no idempotency key.
 */
export async function ensureRegistrarContact(props: EnsureRegistrarContactProps): Promise<RegistrarContactSync> {
  return withTransaction(props.db, async (tx) => {
    const contact = await lockContactForRegistrar(tx, props.mode, props.contactId);
    if (!contact) return { status: 'gone' };
    const known = contact.registrarContactId ?? undefined;
    if (known !== undefined && contact.registrarContactVersion === contact.version) {
      return { status: 'current', registrarContactId: known, version: contact.version };
    }
    if (known === undefined && props.onlyIfKnown) return { status: 'not_at_registrar' };
    const registrarContactId = await props.registrar.syncContact(contactDetails(contact), known);
    await setRegistrarContact(tx, props.mode, { id: contact.id, registrarContactId, version: contact.version });
    return { status: 'synced', registrarContactId, version: contact.version };
  });
}
