import { useState } from 'preact/hooks';
import type { components } from '../../../client/src/index.js';
import { useDashboard } from '../context.js';
import { ErrorNote, fieldError } from '../errors.js';
import { useAction, useCursorPages, useLoad } from '../hooks.js';
import { ActionsHeader, ConfirmButton, Empty, Field, NeedsOrganisation, Pager, TableScroll } from '../components/ui.js';

type ContactInput = components['schemas']['CreateContactInput'];
type Contact = components['schemas']['Contact'];

const FIELDS: { name: keyof ContactInput; label: string; type?: string; placeholder?: string; optional?: boolean }[] = [
  { name: 'first_name', label: 'First name' },
  { name: 'last_name', label: 'Last name' },
  { name: 'organization', label: 'Company', optional: true },
  { name: 'email', label: 'E-mail', type: 'email' },
  { name: 'phone', label: 'Phone', type: 'tel', placeholder: '+14155550123' },
  { name: 'address1', label: 'Address' },
  { name: 'city', label: 'City' },
  { name: 'state', label: 'State or region', optional: true },
  { name: 'postal_code', label: 'Postal code' },
  { name: 'country', label: 'Country', placeholder: 'DE' },
];

const EMPTY: Record<string, string> = Object.fromEntries(FIELDS.map((f) => [f.name, '']));

/** The form's text for each field of a stored contact ('' where it has none). */
const formOf = (contact: Contact): Record<string, string> => Object.fromEntries(FIELDS.map((f) => [f.name, String(contact[f.name] ?? '')]));

/** A PATCH of every field the form shows: an emptied optional field is cleared (`null`). */
function changesOf(form: Record<string, string>): components['schemas']['UpdateContactInput'] {
  const changes: Record<string, string | null> = {};
  for (const f of FIELDS) {
    const value = form[f.name] ?? '';
    if (value !== '') changes[f.name] = value;
    else if (f.optional) changes[f.name] = null;
  }
  return changes;
}

export function ContactsPage() {
  const { client, org } = useDashboard();
  const pages = useCursorPages([org?.id, client]);
  const contacts = useLoad(
    (signal) => (org ? client.listContacts({ path: { org_oid: org.id }, query: { limit: 20, ...(pages.cursor ? { cursor: pages.cursor } : {}) } }, { signal }) : Promise.resolve(undefined)),
    [client, org?.id, pages.cursor],
  );
  const [form, setForm] = useState<Record<string, string>>(EMPTY);
  /** The contact being edited, at the version the form was filled from; undefined while adding one. */
  const [editing, setEditing] = useState<{ id: string; version: number; name: string } | undefined>();
  const create = useAction();
  const remove = useAction();
  if (!org) return <NeedsOrganisation />;

  const startEditing = (contact: Contact) => {
    setEditing({ id: contact.id, version: contact.version, name: `${contact.first_name} ${contact.last_name}` });
    setForm(formOf(contact));
  };
  const stopEditing = () => {
    setEditing(undefined);
    setForm(EMPTY);
  };
  const submit = async (event: Event) => {
    event.preventDefault();
    const saved = editing
      ? await create.run(() =>
          // If-Match: someone else's change since the form was filled is a 409, not overwritten.
          client.updateContact({ path: { org_oid: org.id, contact_id: editing.id }, header: { 'if-match': `"${editing.version}"` }, body: changesOf(form) }),
        )
      : await create.run(() => client.createContact({ path: { org_oid: org.id }, body: Object.fromEntries(Object.entries(form).filter(([, v]) => v !== '')) as unknown as ContactInput }));
    if (saved) {
      stopEditing();
      contacts.reload();
    }
  };
  const fieldMessages = FIELDS.map((f) => fieldError(create.error, f.name)).filter(Boolean);

  return (
    <section>
      <h1>Contacts</h1>
      <p>Registries need a registrant (and optionally admin and tech) contact for every domain.</p>
      <ErrorNote error={contacts.error ?? remove.error} />
      {contacts.data && contacts.data.data.length === 0 ? <Empty>No contacts yet.</Empty> : null}
      {contacts.data && contacts.data.data.length > 0 ? (
        <TableScroll label="Contacts">
          <table class="striped" aria-label="Contacts">
            <thead>
              <tr>
                <th>Name</th>
                <th>E-mail</th>
                <th>Phone</th>
                <th>Country</th>
                <ActionsHeader />
              </tr>
            </thead>
            <tbody>
              {contacts.data.data.map((c) => (
                <tr key={c.id}>
                  <td>
                    {c.first_name} {c.last_name}
                    {c.organization ? <small> · {c.organization}</small> : null}
                  </td>
                  <td>{c.email}</td>
                  <td>{c.phone}</td>
                  <td>{c.country}</td>
                  <td class="row-actions">
                    <button type="button" class="secondary outline small" aria-label={`Edit ${c.first_name} ${c.last_name}`} onClick={() => startEditing(c)}>
                      Edit
                    </button>
                    <ConfirmButton
                      label="Delete"
                      question={`Delete ${c.first_name} ${c.last_name}?`}
                      onConfirm={() => void remove.run(() => client.deleteContact({ path: { org_oid: org.id, contact_id: c.id } })).then(contacts.reload)}
                    />
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </TableScroll>
      ) : null}
      <Pager page={pages.page} nextCursor={contacts.data?.next_cursor} onNext={pages.next} onPrevious={pages.previous} />
      <article>
        <header>
          <strong>{editing ? `Edit ${editing.name}` : 'New contact'}</strong>
        </header>
        <form onSubmit={(e) => void submit(e)} aria-label={editing ? 'Edit contact' : 'New contact'}>
          <div class="form-grid">
            {FIELDS.map((f) => {
              const message = fieldError(create.error, f.name);
              return (
                <Field key={f.name} label={f.optional ? `${f.label} (optional)` : f.label} error={message}>
                  <input
                    name={f.name}
                    type={f.type ?? 'text'}
                    required={!f.optional}
                    placeholder={f.placeholder}
                    value={form[f.name]}
                    aria-invalid={message ? 'true' : undefined}
                    onInput={(e) => setForm({ ...form, [f.name]: e.currentTarget.value })}
                  />
                </Field>
              );
            })}
          </div>
          <ErrorNote error={fieldMessages.length > 0 ? undefined : create.error} />
          {editing ? (
            <div class="button-row">
              <button type="button" class="secondary" onClick={stopEditing}>
                Cancel
              </button>
              <button type="submit" aria-busy={create.busy ? 'true' : undefined}>
                Save changes
              </button>
            </div>
          ) : (
            <button type="submit" aria-busy={create.busy ? 'true' : undefined}>
              Add contact
            </button>
          )}
        </form>
      </article>
    </section>
  );
}
