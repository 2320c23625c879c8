import type { Queryable } from '../../db/pool.js';
import { ModeScopedTable, modeScopedParams, type Mode } from '../../db/modeScope.js';
import { keyset, type PageRequest } from '../../db/keyset.js';

/** What a client sets on a contact; optional parts are null when absent. */
export interface ContactFields {
  firstName: string;
  lastName: string;
  organization: string | null;
  email: string;
  phone: string;
  address1: string;
  address2: string | null;
  city: string;
  state: string | null;
  postalCode: string;
  country: string;
}

export interface Contact extends ContactFields {
  id: string;
  orgId: string;
  version: number;
  /** The upstream registrar's id, once the live adapter has created the contact there. */
  registrarContactId: string | null;
  /** The `version` the registrar holds; behind `version` while a change has not reached it. */
  registrarContactVersion: number | null;
  createdAt: Date;
  updatedAt: Date;
}

/** Column of each client-settable field. */
export const CONTACT_COLUMNS: Readonly<Record<keyof ContactFields, string>> = {
  firstName: 'first_name',
  lastName: 'last_name',
  organization: 'organization',
  email: 'email',
  phone: 'phone',
  address1: 'address1',
  address2: 'address2',
  city: 'city',
  state: 'state',
  postalCode: 'postal_code',
  country: 'country',
};

const contacts = new ModeScopedTable<Contact>(
  'contacts',
  `id, org_id AS "orgId", first_name AS "firstName", last_name AS "lastName", organization, email, phone,
   address1, address2, city, state, postal_code AS "postalCode", country, version,
   registrar_contact_id AS "registrarContactId", registrar_contact_version AS "registrarContactVersion", created_at AS "createdAt", updated_at AS "updatedAt"`,
);

const domainContacts = new ModeScopedTable<{ domainId: string }>('domain_contacts', 'domain_id AS "domainId"');

/** Field values under their column names; fields left undefined are left out. */
function toColumns(fields: Partial<ContactFields>): Record<string, unknown> {
  const columns: Record<string, unknown> = {};
  for (const [field, column] of Object.entries(CONTACT_COLUMNS) as [keyof ContactFields, string][]) {
    if (fields[field] !== undefined) columns[column] = fields[field];
  }
  return columns;
}

export async function insertContact(
  db: Queryable,
  mode: Mode,
  props: { id: string; orgId: string; fields: ContactFields },
): Promise<Contact> {
  return contacts.insert(db, mode, { id: props.id, org_id: props.orgId, ...toColumns(props.fields) });
}

/** One contact of the organisation in the caller's mode; another org's or mode's looks missing. */
export async function findContact(
  db: Queryable,
  mode: Mode,
  props: { orgId: string; id: string; forUpdate?: boolean },
): Promise<Contact | undefined> {
  const rows = await contacts.select(db, mode, 'id = $2 AND org_id = $3', [props.id, props.orgId], props.forUpdate ? 'FOR UPDATE' : '');
  return rows[0];
}

/** Newest first, by keyset on (created_at, id). */
export async function listContacts(
  db: Queryable,
  mode: Mode,
  props: { orgId: string } & PageRequest,
): Promise<Contact[]> {
  const p = modeScopedParams();
  const page = keyset(p, { time: 'created_at', id: 'id' }, props);
  return contacts.select(db, mode, `org_id = ${p.add(props.orgId)} AND ${page.condition}`, p.values, page.tail);
}

export type ContactUpdate =
  | { status: 'updated'; contact: Contact }
  | { status: 'not_found' }
  | { status: 'version_mismatch'; currentVersion: number };

/**
 * Applies `changes` and raises the version by one, in one statement, if the contact exists and (when
 * `expectedVersion` is given) is still at that version. Of two concurrent updates expecting the same
 * version, exactly one succeeds.
 */
export async function updateContact(
  db: Queryable,
  mode: Mode,
  props: { orgId: string; id: string; expectedVersion: number | undefined; changes: Partial<ContactFields> },
): Promise<ContactUpdate> {
  const [updated] = await contacts.update(
    db,
    mode,
    'id = $2 AND org_id = $3 AND ($4::int IS NULL OR version = $4)',
    [props.id, props.orgId, props.expectedVersion ?? null],
    toColumns(props.changes),
    { increment: ['version'], now: ['updated_at'] },
  );
  if (updated) return { status: 'updated', contact: updated };
  const current = await findContact(db, mode, { orgId: props.orgId, id: props.id });
  return current ? { status: 'version_mismatch', currentVersion: current.version } : { status: 'not_found' };
}

export async function deleteContact(db: Queryable, mode: Mode, props: { orgId: string; id: string }): Promise<boolean> {
  return (await contacts.delete(db, mode, 'id = $2 AND org_id = $3', [props.id, props.orgId])) === 1;
}

/**
 * Whether a domain uses the contact in any role. The domains feature fills `domain_contacts`; its
 * foreign key keeps a domain and its contacts in one mode.
 */
export async function isContactInUse(db: Queryable, mode: Mode, contactId: string): Promise<boolean> {
  return (await domainContacts.findOne(db, mode, 'contact_id = $2', [contactId])) !== undefined;
}

/**
 * The contact, locked until the transaction ends, whatever its organisation. Used while its copy at
 * the registrar is created or updated, so two registrations using one contact create it once.
 */
export async function lockContactForRegistrar(db: Queryable, mode: Mode, id: string): Promise<Contact | undefined> {
  return (await contacts.select(db, mode, 'id = $2', [id], 'FOR UPDATE'))[0];
}

/** Records that the registrar holds `version` of the contact under `registrarContactId`. */
export async function setRegistrarContact(
  db: Queryable,
  mode: Mode,
  props: { id: string; registrarContactId: string; version: number },
): Promise<void> {
  await contacts.update(db, mode, 'id = $2', [props.id], {
    registrar_contact_id: props.registrarContactId,
    registrar_contact_version: props.version,
  });
}
