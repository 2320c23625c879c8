import { defineRoute } from '../../http/route.js';
import type { PlatformDeps } from '../../platformDeps.js';
import { findContact, listContacts } from './contacts.repository.js';
import { CreatedHeaders, ETagHeaders, etagOf, IfMatchHeader, setETag } from '../../http/conditional.js';
import { answerInTransaction } from '../../http/idempotency.js';
import { decodeCursor, PaginationQuery, toPage } from '../../http/pagination.js';
import { NotFoundError } from '../../errors.js';
import { ContactSchema, presentContact } from './contact.presenter.js';
import { createContactWithin } from './createContact.js';
import { updateContact } from './updateContact.js';
import { startRegistrarContactSync, type StartRegistrarContactSyncProps } from './startRegistrarContactSync.js';
import { deleteContact } from './deleteContact.js';
import { OrgPath } from '../../http/pathParams.js';
import { ContactPage, ContactPath, CreateContactBody, UpdateContactBody } from './schemas.js';
import { modeOf } from '../../db/modeScope.js';

const NOT_FOUND = 'No such contact in this organisation and mode (`NOT_FOUND`)';
const STALE = '`If-Match` names a version other than the current one (`VERSION_MISMATCH`); nothing was changed';

const MODE_NOTE =
  'Test keys see and change only test-mode contacts; live keys and sessions only live ones. ' +
  "A contact of another organisation or mode answers 404 `NOT_FOUND`, like one that does not exist.";

export type ContactRouteDeps = Pick<PlatformDeps, 'db'> & StartRegistrarContactSyncProps['deps'];

export function contactRoutes(deps: ContactRouteDeps) {
  return [
    defineRoute({
      method: 'get',
      path: '/api/v1/orgs/{org_oid}/contacts',
      operationId: 'listContacts',
      summary: "The organisation's contacts in the caller's mode, newest first",
      description: MODE_NOTE,
      tags: ['contacts'],
      scope: 'contacts:read',
      request: { path: OrgPath, query: PaginationQuery },
      responses: { 200: { description: 'A page of contacts', schema: ContactPage } },
      handler: async (ctx, { path, query, principal }) => {
        const rows = await listContacts(deps.db, modeOf(principal.livemode), {
          orgId: path.org_oid,
          limit: query.limit,
          after: decodeCursor(query.cursor),
        });
        ctx.body = toPage(rows, query.limit, (c) => ({ createdAt: c.createdAt, id: c.id }), presentContact);
      },
    }),
    defineRoute({
      method: 'post',
      path: '/api/v1/orgs/{org_oid}/contacts',
      operationId: 'createContact',
      summary: 'Create a contact (registrant, admin or tech) for domains of the organisation',
      description: `Strings are trimmed; \`country\` is upper-cased. ${MODE_NOTE}`,
      tags: ['contacts'],
      scope: 'contacts:write',
      request: { path: OrgPath, body: CreateContactBody },
      responses: { 201: { description: 'Created, at version 1', schema: ContactSchema, headers: CreatedHeaders } },
      answersInTransaction: true,
      handler: async (ctx, { path, body, principal, requestId }) => {
        await answerInTransaction(ctx, deps.db, async (tx) => {
          const contact = await createContactWithin(tx, { principal, orgId: path.org_oid, fields: body, requestId });
          const headers = { Location: `/api/v1/orgs/${path.org_oid}/contacts/${contact.id}`, ETag: etagOf(contact.version) };
          return { status: 201, headers, body: presentContact(contact) };
        });
      },
    }),
    defineRoute({
      method: 'get',
      path: '/api/v1/orgs/{org_oid}/contacts/{contact_id}',
      operationId: 'getContact',
      summary: 'One contact, with its version as ETag',
      description: MODE_NOTE,
      tags: ['contacts'],
      scope: 'contacts:read',
      request: { path: ContactPath },
      responses: { 200: { description: 'The contact', schema: ContactSchema, headers: ETagHeaders } },
      errors: { 404: NOT_FOUND },
      handler: async (ctx, { path, principal }) => {
        const contact = await findContact(deps.db, modeOf(principal.livemode), { orgId: path.org_oid, id: path.contact_id });
        if (!contact) throw new NotFoundError('Contact not found');
        setETag(ctx, contact.version);
        ctx.body = presentContact(contact);
      },
    }),
    defineRoute({
      method: 'patch',
      path: '/api/v1/orgs/{org_oid}/contacts/{contact_id}',
      operationId: 'updateContact',
      summary: 'Change some fields of a contact; its version goes up by one',
      description:
        'Send only the fields to change; `null` clears `organization`, `address2` or `state`. With `If-Match` ' +
        `naming an older version the answer is 409 \`VERSION_MISMATCH\` and nothing changes. A live contact ` +
        'already used for a registration is then updated at the registrar in the background. ' +
        MODE_NOTE,
      tags: ['contacts'],
      scope: 'contacts:write',
      request: { path: ContactPath, header: IfMatchHeader, body: UpdateContactBody },
      responses: { 200: { description: 'The updated contact', schema: ContactSchema, headers: ETagHeaders } },
      errors: { 404: NOT_FOUND, 409: STALE },
      handler: async (ctx, { path, header, body, principal, requestId }) => {
        const contact = await updateContact({
          db: deps.db,
          principal: principal,
          orgId: path.org_oid,
          contactId: path.contact_id,
          expectedVersion: header['if-match'],
          changes: body,
          requestId,
        });
        await startRegistrarContactSync({ deps, livemode: principal.livemode, contact });
        setETag(ctx, contact.version);
        ctx.body = presentContact(contact);
      },
    }),
    defineRoute({
      method: 'delete',
      path: '/api/v1/orgs/{org_oid}/contacts/{contact_id}',
      operationId: 'deleteContact',
      summary: 'Delete a contact no domain uses',
      description:
        'A contact a domain uses answers 409 `CONTACT_IN_USE`; with `If-Match` naming an older version, 409 ' +
        `\`VERSION_MISMATCH\`. Deletion is permanent. ${MODE_NOTE}`,
      tags: ['contacts'],
      scope: 'contacts:write',
      request: { path: ContactPath, header: IfMatchHeader },
      responses: { 204: { description: 'Deleted' } },
      errors: { 404: NOT_FOUND, 409: `A domain uses the contact (\`CONTACT_IN_USE\`); or ${STALE}` },
      handler: async (ctx, { path, header, principal, requestId }) => {
        await deleteContact({
          db: deps.db,
          principal: principal,
          orgId: path.org_oid,
          contactId: path.contact_id,
          expectedVersion: header['if-match'],
          requestId,
        });
        ctx.status = 204;
      },
    }),
  ];
}
