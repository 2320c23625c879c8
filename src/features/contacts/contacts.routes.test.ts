import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../../../test/support/testApp.js';
import { bearer, jsonHeaders, uniqueEmail } from '../../../test/support/actors.js';
import { insertKey, insertOrg, insertUser, sessionOf, type FactoryUser } from '../../../test/support/factories.js';
import { readJson, type FieldErrorBody, type MessageErrorBody } from '../../../test/support/http.js';
import { listAuditEventsForTarget } from '../../audit/auditEvents.js';
import { findContact, isContactInUse } from './contacts.repository.js';
import { ModeScopedTable, modeOf } from '../../db/modeScope.js';
import { randomBase62 } from '../../ids.js';

interface ContactBody {
  id: string;
  first_name: string;
  last_name: string;
  organization: string | null;
  email: string;
  phone: string;
  address1: string;
  address2: string | null;
  city: string;
  state: string | null;
  postal_code: string;
  country: string;
  version: number;
  created_at: string;
  updated_at: string;
}

interface ContactList {
  data: ContactBody[];
  next_cursor: string | null;
}

const LIVE = modeOf(true);
const TEST = modeOf(false);

const ADA = {
  first_name: 'Ada',
  last_name: 'Lovelace',
  organization: 'Analytical Engines Ltd',
  email: 'ada@example.com',
  phone: '+442079460000',
  address1: '12 St James Square',
  city: 'London',
  postal_code: 'SW1Y 4JH',
  country: 'GB',
};

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- a parsed JSON document, inspected field by field
type OpenApiDoc = any;

const NOT_FOUND = { code: 'NOT_FOUND', detail: 'Contact not found' };

/** How the domains feature will record that a domain uses a contact. */
const domainContacts = new ModeScopedTable<{ domainId: string }>('domain_contacts', 'domain_id AS "domainId"');

let app: TestApp;
let email: string;
let session: string;
// Written straight to the database (factories.ts): these tests are about contacts, not sign-up or organisations.
let user: FactoryUser;

beforeAll(async () => {
  app = await startTestApp();
});
// A new user and session per test: each session has its own rate-limit pool (10 writes a second).
beforeEach(async () => {
  email = uniqueEmail('contacts');
  user = await insertUser(app.deps, email);
  session = await sessionOf(app.deps, user);
});
afterAll(async () => app?.close());

const contactsPath = (orgId: string) => `/api/v1/orgs/${orgId}/contacts`;
const contactPath = (orgId: string, id: string) => `${contactsPath(orgId)}/${id}`;

const create = (token: string, orgId: string, body: unknown, headers: Record<string, string> = {}) =>
  app.fetch(contactsPath(orgId), { method: 'POST', headers: { ...jsonHeaders(token), ...headers }, body: JSON.stringify(body) });
const get = (token: string, orgId: string, id: string) => app.fetch(contactPath(orgId, id), { headers: bearer(token) });
const patch = (token: string, orgId: string, id: string, body: unknown, headers: Record<string, string> = {}) =>
  app.fetch(contactPath(orgId, id), { method: 'PATCH', headers: { ...jsonHeaders(token), ...headers }, body: JSON.stringify(body) });
const del = (token: string, orgId: string, id: string, headers: Record<string, string> = {}) =>
  app.fetch(contactPath(orgId, id), { method: 'DELETE', headers: { ...bearer(token), ...headers } });
const list = async (token: string, orgId: string, query = '') =>
  readJson<ContactList>(await app.fetch(`${contactsPath(orgId)}${query}`, { headers: bearer(token) }));

async function createContact(token: string, orgId: string, body: unknown = ADA): Promise<ContactBody> {
  const res = await create(token, orgId, body);
  if (res.status !== 201) throw new Error(`contact creation refused: ${res.status} ${await res.text()}`);
  return readJson<ContactBody>(res);
}

describe('contacts CRUD', () => {
  it('creates, reads, lists, updates and deletes a contact, raising the version on each change', async () => {
    const org = await insertOrg(app.deps, { owner: user });
    const res = await create(session, org.id, { ...ADA, first_name: '  Ada ', country: ' gb', address2: '   ' });
    expect(res.status).toBe(201);
    const contact = await readJson<ContactBody>(res);
    expect(contact).toEqual({
      id: expect.stringMatching(/^ct_[0-9A-Za-z]{22}$/),
      first_name: 'Ada',
      last_name: 'Lovelace',
      organization: 'Analytical Engines Ltd',
      email: 'ada@example.com',
      phone: '+442079460000',
      address1: '12 St James Square',
      address2: null,
      city: 'London',
      state: null,
      postal_code: 'SW1Y 4JH',
      country: 'GB',
      version: 1,
      created_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
      updated_at: expect.any(String),
    });
    expect(contact.updated_at).toBe(contact.created_at);
    expect(res.headers.get('location')).toBe(`/api/v1/orgs/${org.id}/contacts/${contact.id}`);
    expect(res.headers.get('etag')).toBe('"1"');

    const shown = await get(session, org.id, contact.id);
    expect(shown.status).toBe(200);
    expect(shown.headers.get('etag')).toBe('"1"');
    expect(await shown.json()).toEqual(contact);
    expect(await list(session, org.id)).toEqual({ data: [contact], next_cursor: null });

    const changes = { organization: null, city: ' Paris ', state: 'Île-de-France', postal_code: '75001', country: 'fr' };
    const patched = await patch(session, org.id, contact.id, changes);
    expect(patched.status).toBe(200);
    expect(patched.headers.get('etag')).toBe('"2"');
    const updated = await readJson<ContactBody>(patched);
    expect(updated).toEqual({
      ...contact,
      organization: null,
      city: 'Paris',
      state: 'Île-de-France',
      postal_code: '75001',
      country: 'FR',
      version: 2,
      updated_at: expect.any(String),
    });
    expect(Date.parse(updated.updated_at)).toBeGreaterThan(Date.parse(contact.created_at));
    const reread = await get(session, org.id, contact.id);
    expect(reread.headers.get('etag')).toBe('"2"');
    expect(await reread.json()).toEqual(updated);

    const again = await readJson<ContactBody>(await patch(session, org.id, contact.id, { phone: '+33142685300' }));
    expect([again.phone, again.version, again.city]).toEqual(['+33142685300', 3, 'Paris']);

    const deleted = await del(session, org.id, contact.id);
    expect(deleted.status).toBe(204);
    expect(await deleted.text()).toBe('');
    const gone = await get(session, org.id, contact.id);
    expect(gone.status).toBe(404);
    expect(await gone.json()).toEqual(NOT_FOUND);
    expect((await del(session, org.id, contact.id)).status).toBe(404);
    expect(await list(session, org.id)).toEqual({ data: [], next_cursor: null });

    const events = await listAuditEventsForTarget(app.deps.db, 'contact', contact.id);
    expect(events.map((e) => [e.action, e.orgId, e.data])).toEqual([
      ['contact.created', org.id, { livemode: true, version: 1 }],
      ['contact.updated', org.id, { livemode: true, version: 2, fields: ['organization', 'city', 'state', 'postal_code', 'country'] }],
      ['contact.updated', org.id, { livemode: true, version: 3, fields: ['phone'] }],
      ['contact.deleted', org.id, { livemode: true, version: 3, registrar_contact_id: null }],
    ]);
    expect(JSON.stringify(events)).not.toMatch(/Lovelace|ada@example\.com|Paris/);
  });

  it('pages newest first with next_cursor', async () => {
    const org = await insertOrg(app.deps, { owner: user });
    for (const name of ['One', 'Two', 'Three']) await createContact(session, org.id, { ...ADA, first_name: name });
    const first = await list(session, org.id, '?limit=2');
    expect(first.data.map((c) => c.first_name)).toEqual(['Three', 'Two']);
    expect(first.next_cursor).toEqual(expect.any(String));
    const second = await list(session, org.id, `?limit=2&cursor=${first.next_cursor}`);
    expect(second.data.map((c) => c.first_name)).toEqual(['One']);
    expect(second.next_cursor).toBeNull();
  });

  it('replays a create sent again with the same Idempotency-Key, ETag and Location included', async () => {
    const org = await insertOrg(app.deps, { owner: user });
    const key = { 'idempotency-key': `create-ada-${randomBase62(8)}` };
    const first = await create(session, org.id, ADA, key);
    const second = await create(session, org.id, ADA, key);
    expect([first.status, second.status]).toEqual([201, 201]);
    expect(second.headers.get('idempotent-replayed')).toBe('true');
    expect(second.headers.get('etag')).toBe('"1"');
    expect(second.headers.get('location')).toBe(first.headers.get('location'));
    expect(await second.json()).toEqual(await first.json());
    expect((await list(session, org.id)).data).toHaveLength(1);
  });
});

describe('versions and If-Match', () => {
  it('PATCH applies only while If-Match names the current version; * or no header skips the check', async () => {
    const org = await insertOrg(app.deps, { owner: user });
    const contact = await createContact(session, org.id);

    const fresh = await patch(session, org.id, contact.id, { first_name: 'Augusta' }, { 'if-match': '"1"' });
    expect(fresh.status).toBe(200);
    expect(fresh.headers.get('etag')).toBe('"2"');

    const stale = await patch(session, org.id, contact.id, { first_name: 'Stale' }, { 'if-match': '"1"' });
    expect(stale.status).toBe(409);
    expect(await stale.json()).toEqual({
      code: 'VERSION_MISMATCH',
      detail: 'The contact is at version 2, not 1; fetch it again and retry with If-Match: "2"',
    });
    const current = await readJson<ContactBody>(await get(session, org.id, contact.id));
    expect([current.first_name, current.version]).toEqual(['Augusta', 2]);

    const star = await patch(session, org.id, contact.id, { last_name: 'King' }, { 'if-match': '*' });
    expect([star.status, star.headers.get('etag')]).toEqual([200, '"3"']);
    const unconditional = await patch(session, org.id, contact.id, { last_name: 'Byron' });
    expect([unconditional.status, unconditional.headers.get('etag')]).toEqual([200, '"4"']);
    expect((await patch(session, org.id, contact.id, { city: 'Bath' }, { 'if-match': '"4"' })).status).toBe(200);
  });

  it('of concurrent PATCHes naming the same version exactly one wins', async () => {
    const org = await insertOrg(app.deps, { owner: user });
    const contact = await createContact(session, org.id);
    const cities = ['Leeds', 'York', 'Bath', 'Hull', 'Ely'];
    const answers = await Promise.all(cities.map((city) => patch(session, org.id, contact.id, { city }, { 'if-match': '"1"' })));
    expect(answers.map((r) => r.status).sort()).toEqual([200, 409, 409, 409, 409]);
    const winner = await readJson<ContactBody>(answers.find((r) => r.status === 200)!);
    const current = await readJson<ContactBody>(await get(session, org.id, contact.id));
    expect(current).toEqual(winner);
    expect(current.version).toBe(2);
  });

  it('DELETE with a stale If-Match is 409 VERSION_MISMATCH and deletes nothing', async () => {
    const org = await insertOrg(app.deps, { owner: user });
    const contact = await createContact(session, org.id);
    await patch(session, org.id, contact.id, { city: 'Bath' });

    const stale = await del(session, org.id, contact.id, { 'if-match': '"1"' });
    expect(stale.status).toBe(409);
    expect(await stale.json()).toEqual({
      code: 'VERSION_MISMATCH',
      detail: 'The contact is at version 2, not 1; fetch it again and retry with If-Match: "2"',
    });
    expect((await get(session, org.id, contact.id)).status).toBe(200);
    expect((await del(session, org.id, contact.id, { 'if-match': '"2"' })).status).toBe(204);
    expect((await get(session, org.id, contact.id)).status).toBe(404);
  });

  it('refuses a malformed If-Match with 422 at header.if-match', async () => {
    const org = await insertOrg(app.deps, { owner: user });
    const contact = await createContact(session, org.id);
    for (const ifMatch of ['1', 'W/"1"', '"one"', '"0"', '"1", "2"']) {
      const writer = await sessionOf(app.deps, user);
      const res = await patch(writer, org.id, contact.id, { city: 'Bath' }, { 'if-match': ifMatch });
      expect(res.status).toBe(422);
      expect(await res.json()).toEqual({
        code: 'VALIDATION_ERROR',
        detail: [
          {
            loc: ['header', 'if-match'],
            msg: 'Must be "*" or one ETag as returned by this API, e.g. "3" (with the quotes)',
            type: 'invalid_format',
          },
        ],
      });
    }
    const onDelete = await readJson<FieldErrorBody>(await del(session, org.id, contact.id, { 'if-match': 'abc' }));
    expect(onDelete.detail.map((e) => e.loc)).toEqual([['header', 'if-match']]);
    expect((await readJson<ContactBody>(await get(session, org.id, contact.id))).version).toBe(1);
  });
});

describe('validation', () => {
  /** Each invalid request from a fresh session, so the burst limit never interferes. */
  const createAsFresh = async (orgId: string, body: unknown) => create(await sessionOf(app.deps, user), orgId, body);

  it("accepts phones in the registrars' +CC.NUMBER notation and stores them as E.164", async () => {
    const org = await insertOrg(app.deps, { owner: user });
    const created = await readJson<ContactBody>(await createAsFresh(org.id, { ...ADA, phone: '+44.2071234567' }));
    expect(created.phone).toBe('+442071234567');
    const patched = await readJson<ContactBody>(await patch(await sessionOf(app.deps, user), org.id, created.id, { phone: ' +1.4155550123 ' }));
    expect(patched.phone).toBe('+14155550123');
    for (const phone of ['+44..2071234567', '+4412.34.567', '+.442071234567', '+44.', '+1234.5678']) {
      expect((await createAsFresh(org.id, { ...ADA, phone })).status, phone).toBe(422);
    }
  });

  it.each([
    ['a phone with spaces', { phone: '+44 20 7946 0000' }, ['body', 'phone'], 'invalid_format'],
    ['a phone without +', { phone: '00442079460000' }, ['body', 'phone'], 'invalid_format'],
    ['a phone with country code 0', { phone: '+0442079460000' }, ['body', 'phone'], 'invalid_format'],
    ['a phone longer than 15 digits', { phone: '+4420794600001234' }, ['body', 'phone'], 'invalid_format'],
    ['an unassigned country', { country: 'XX' }, ['body', 'country'], 'custom'],
    ['a reserved country code', { country: 'UK' }, ['body', 'country'], 'custom'],
    ['an alpha-3 country', { country: 'GBR' }, ['body', 'country'], 'custom'],
    ['an e-mail without domain', { email: 'ada@' }, ['body', 'email'], 'invalid_format'],
    ['an e-mail without @', { email: 'ada.example.com' }, ['body', 'email'], 'invalid_format'],
    ['a blank first name', { first_name: '   ' }, ['body', 'first_name'], 'too_small'],
    ['a last name over 100 characters', { last_name: 'x'.repeat(101) }, ['body', 'last_name'], 'too_big'],
    ['a control character', { city: 'Lon\ndon' }, ['body', 'city'], 'custom'],
    ['a postal code with symbols', { postal_code: 'SW1Y_4JH' }, ['body', 'postal_code'], 'invalid_format'],
    ['a number for a string', { address1: 12 }, ['body', 'address1'], 'invalid_type'],
    ['an unknown field', { nickname: 'Ada' }, ['body'], 'unrecognized_keys'],
    ['a client-chosen version', { version: 7 }, ['body'], 'unrecognized_keys'],
  ])('refuses %s with one field error', async (_label, override, loc, type) => {
    const org = await insertOrg(app.deps, { owner: user });
    const res = await createAsFresh(org.id, { ...ADA, ...override });
    expect(res.status).toBe(422);
    const body = await readJson<FieldErrorBody>(res);
    expect(body.code).toBe('VALIDATION_ERROR');
    expect(body.detail.map((e) => [e.loc, e.type])).toEqual([[loc, type]]);
    expect((await list(session, org.id)).data).toEqual([]);
  });

  it('explains each problem in words', async () => {
    const org = await insertOrg(app.deps, { owner: user });
    const res = await createAsFresh(org.id, { ...ADA, phone: '020 7946 0000', country: 'XX', email: 'nope', city: 'a\u0007b', nickname: 'x' });
    expect(await res.json()).toEqual({
      code: 'VALIDATION_ERROR',
      detail: [
        { loc: ['body', 'email'], msg: 'Invalid email address', type: 'invalid_format' },
        {
          loc: ['body', 'phone'],
          msg: 'Must be an E.164 phone number: "+", country code and number, digits only (e.g. +14155550123)',
          type: 'invalid_format',
        },
        { loc: ['body', 'city'], msg: 'Must not contain control characters', type: 'custom' },
        { loc: ['body', 'country'], msg: 'Must be an ISO 3166-1 alpha-2 country code, e.g. "DE"', type: 'custom' },
        { loc: ['body'], msg: 'Unrecognized key: "nickname"', type: 'unrecognized_keys' },
      ],
    });
  });

  it('names every missing required field, and treats optional fields as optional', async () => {
    const org = await insertOrg(app.deps, { owner: user });
    const missing = await readJson<FieldErrorBody>(await createAsFresh(org.id, {}));
    expect(missing.detail.map((e) => [e.loc.join('.'), e.type])).toEqual([
      ['body.first_name', 'invalid_type'],
      ['body.last_name', 'invalid_type'],
      ['body.email', 'invalid_type'],
      ['body.phone', 'invalid_type'],
      ['body.address1', 'invalid_type'],
      ['body.city', 'invalid_type'],
      ['body.postal_code', 'invalid_type'],
      ['body.country', 'invalid_type'],
    ]);
    const required = Object.fromEntries(Object.entries(ADA).filter(([field]) => field !== 'organization'));
    const minimal = await createContact(session, org.id, { ...required, email: '  ada@example.com ' });
    expect([minimal.organization, minimal.address2, minimal.state, minimal.email]).toEqual([null, null, null, 'ada@example.com']);
  });

  it('validates PATCH bodies: at least one field, no null for required fields, same rules per field', async () => {
    const org = await insertOrg(app.deps, { owner: user });
    const contact = await createContact(session, org.id);
    const patchAsFresh = async (body: unknown) => patch(await sessionOf(app.deps, user), org.id, contact.id, body);

    expect(await (await patchAsFresh({})).json()).toEqual({
      code: 'VALIDATION_ERROR',
      detail: [{ loc: ['body'], msg: 'Give at least one field to change', type: 'custom' }],
    });
    const cases: [unknown, string, string][] = [
      [{ first_name: null }, 'body.first_name', 'invalid_type'],
      [{ phone: '12345' }, 'body.phone', 'invalid_format'],
      [{ country: 'zz' }, 'body.country', 'custom'],
      [{ email: 'ada@@example.com' }, 'body.email', 'invalid_format'],
      [{ id: 'ct_other' }, 'body', 'unrecognized_keys'],
    ];
    for (const [body, loc, type] of cases) {
      const res = await patchAsFresh(body);
      expect(res.status).toBe(422);
      expect((await readJson<FieldErrorBody>(res)).detail.map((e) => [e.loc.join('.'), e.type])[0]).toEqual([loc, type]);
    }
    expect(await (await get(session, org.id, contact.id)).json()).toEqual(contact);
  });
});

describe('who sees which contact', () => {
  it("answers another organisation's contact with 404, exactly like a missing one", async () => {
    const orgA = await insertOrg(app.deps, { owner: user, name: 'A' });
    const orgB = await insertOrg(app.deps, { owner: user, name: 'B' });
    const contact = await createContact(session, orgA.id);

    for (const id of [contact.id, 'ct_doesnotexist0000000000']) {
      for (const res of [
        await get(session, orgB.id, id),
        await patch(session, orgB.id, id, { city: 'Bath' }),
        await del(session, orgB.id, id),
      ]) {
        expect(res.status).toBe(404);
        expect(await res.json()).toEqual(NOT_FOUND);
      }
    }
    expect((await list(session, orgB.id)).data).toEqual([]);
    expect(await (await get(session, orgA.id, contact.id)).json()).toEqual(contact);

    const stranger = await sessionOf(app.deps, await insertUser(app.deps, uniqueEmail('stranger')));
    const denied = await get(stranger, orgA.id, contact.id);
    expect(denied.status).toBe(403);
    expect((await readJson<MessageErrorBody>(denied)).code).toBe('NOT_ORG_MEMBER');
  });

  it('keeps test-mode and live contacts apart: each mode sees only its own', async () => {
    const org = await insertOrg(app.deps, { owner: user });
    const scopes = ['contacts:read', 'contacts:write'];
    const testKey = await insertKey(app.deps, { user, name: 'sandbox', scopes, mode: 'test' });
    const liveKey = await insertKey(app.deps, { user, name: 'live', scopes, mode: 'live' });
    const live = await createContact(session, org.id);

    for (const res of [
      await get(testKey.key, org.id, live.id),
      await patch(testKey.key, org.id, live.id, { city: 'Bath' }),
      await del(testKey.key, org.id, live.id),
    ]) {
      expect(res.status).toBe(404);
      expect(await res.json()).toEqual(NOT_FOUND);
    }
    expect((await list(testKey.key, org.id)).data).toEqual([]);

    const sandbox = await createContact(testKey.key, org.id, { ...ADA, first_name: 'Sandbox' });
    expect(sandbox.version).toBe(1);
    expect((await list(testKey.key, org.id)).data.map((c) => c.id)).toEqual([sandbox.id]);
    for (const token of [session, liveKey.key]) {
      expect((await get(token, org.id, sandbox.id)).status).toBe(404);
      expect((await list(token, org.id)).data.map((c) => c.id)).toEqual([live.id]);
    }
    expect((await patch(liveKey.key, org.id, sandbox.id, { city: 'Bath' })).status).toBe(404);
    expect((await del(session, org.id, sandbox.id)).status).toBe(404);

    expect(await findContact(app.deps.db, TEST, { orgId: org.id, id: sandbox.id })).toMatchObject({ firstName: 'Sandbox', version: 1 });
    expect(await findContact(app.deps.db, LIVE, { orgId: org.id, id: sandbox.id })).toBeUndefined();
    expect(await (await get(session, org.id, live.id)).json()).toEqual(live);
    expect((await del(testKey.key, org.id, sandbox.id)).status).toBe(204);
  });

  it('needs contacts:read to read and contacts:write to change', async () => {
    const org = await insertOrg(app.deps, { owner: user });
    const contact = await createContact(session, org.id);
    const reader = await insertKey(app.deps, { user, name: 'reader', scopes: ['contacts:read'], mode: 'live' });
    const outsider = await insertKey(app.deps, { user, name: 'domains only', scopes: ['domains:read'], mode: 'live' });

    expect((await list(reader.key, org.id)).data.map((c) => c.id)).toEqual([contact.id]);
    for (const res of [
      await create(reader.key, org.id, ADA),
      await patch(reader.key, org.id, contact.id, { city: 'Bath' }),
      await del(reader.key, org.id, contact.id),
    ]) {
      expect(res.status).toBe(403);
      expect(await res.json()).toEqual({ code: 'INSUFFICIENT_SCOPE', detail: 'This API key lacks the scope contacts:write' });
    }
    const noRead = await get(outsider.key, org.id, contact.id);
    expect(await noRead.json()).toEqual({ code: 'INSUFFICIENT_SCOPE', detail: 'This API key lacks the scope contacts:read' });
  });
});

describe('contacts in use', () => {
  it('refuses to delete a contact a domain uses with 409 CONTACT_IN_USE, and deletes it once released', async () => {
    const org = await insertOrg(app.deps, { owner: user });
    const contact = await createContact(session, org.id);
    const domainId = `example-${randomBase62(8).toLowerCase()}.com`;
    await domainContacts.insert(app.deps.db, LIVE, { domain_id: domainId, contact_id: contact.id, role: 'registrant' });
    expect(await isContactInUse(app.deps.db, LIVE, contact.id)).toBe(true);
    expect(await isContactInUse(app.deps.db, TEST, contact.id)).toBe(false);

    const refused = await del(session, org.id, contact.id);
    expect(refused.status).toBe(409);
    expect(await refused.json()).toEqual({
      code: 'CONTACT_IN_USE',
      detail: 'A domain uses this contact; give the domain another contact first',
    });
    expect((await del(session, org.id, contact.id, { 'if-match': '"1"' })).status).toBe(409);
    // Still there, and still editable: a registrant's details change while the domain stays.
    const edited = await patch(session, org.id, contact.id, { email: 'ada@lovelace.example' });
    expect([edited.status, edited.headers.get('etag')]).toEqual([200, '"2"']);

    expect(await domainContacts.delete(app.deps.db, LIVE, 'domain_id = $2', [domainId])).toBe(1);
    expect(await isContactInUse(app.deps.db, LIVE, contact.id)).toBe(false);
    expect((await del(session, org.id, contact.id)).status).toBe(204);
  });

  it('lets a domain use only a contact of its own mode (the database refuses the other)', async () => {
    const org = await insertOrg(app.deps, { owner: user });
    const contact = await createContact(session, org.id);
    const row = { domain_id: `example-${randomBase62(8).toLowerCase()}.com`, contact_id: contact.id, role: 'admin' };
    await expect(domainContacts.insert(app.deps.db, TEST, row)).rejects.toMatchObject({ code: '23503' });
    expect(await isContactInUse(app.deps.db, LIVE, contact.id)).toBe(false);
  });
});

describe('API reference', () => {
  it('documents the contact routes with ETag, If-Match and their 404 and 409 answers', async () => {
    const document: OpenApiDoc = await (await app.fetch('/api/v1/openapi.json')).json();
    const one = document.paths['/api/v1/orgs/{org_oid}/contacts/{contact_id}'];
    expect(Object.keys(one).sort()).toEqual(['delete', 'get', 'patch']);
    expect(Object.keys(document.paths['/api/v1/orgs/{org_oid}/contacts']).sort()).toEqual(['get', 'post']);
    for (const method of ['patch', 'delete']) {
      expect(one[method].parameters).toEqual(expect.arrayContaining([expect.objectContaining({ name: 'if-match', in: 'header', required: false })]));
      expect(one[method].responses['404'].description).toContain('NOT_FOUND');
      expect(one[method].responses['409'].description).toContain('VERSION_MISMATCH');
    }
    expect(one.delete.responses['409'].description).toContain('CONTACT_IN_USE');
    expect(Object.keys(one.get.responses['200'].headers)).toContain('ETag');
    const created = document.paths['/api/v1/orgs/{org_oid}/contacts'].post.responses['201'];
    expect(Object.keys(created.headers)).toEqual(expect.arrayContaining(['ETag', 'Location']));
    expect(Object.keys(document.components.schemas.Contact.properties)).toEqual([
      'id',
      'first_name',
      'last_name',
      'organization',
      'email',
      'phone',
      'address1',
      'address2',
      'city',
      'state',
      'postal_code',
      'country',
      'version',
      'created_at',
      'updated_at',
    ]);
  });
});
