/**
 * A stored answer outlives the api process that stored it: a registration's 202 (stored after its
 * workflow started, on the claims' connections, whose commits do not wait for the disk) and a
 * contact's 201 (stored in its own transaction) are replayed by a process started after the first
 * one stopped, as after a deploy or a crash.
 */
import { randomBytes } from 'node:crypto';
import { afterAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../support/testApp.js';
import { customerFactory } from '../support/customers.js';
import { jsonHeaders } from '../support/actors.js';
import { readJson } from '../support/http.js';

// Every api process of a deployment shares its secret; without it each test app would draw its own.
const env = { KEY_HASH_SECRET: randomBytes(32).toString('base64url') };
let second: TestApp | undefined;
afterAll(async () => second?.close());

describe('an answer stored by one api process', () => {
  it('is replayed by the next one, after the first has stopped', { timeout: 60_000 }, async () => {
    const first = await startTestApp({ env });
    const c = await customerFactory(first).customer(10_000);
    const name = `restart-${Date.now()}.com`;
    const registration = { name, years: 1, registrant_contact_id: c.contactId };
    const contact = { first_name: 'Ada', last_name: 'Lovelace', email: 'ada@example.com', phone: '+44.2071234567', address1: '1 Main St', city: 'London', postal_code: 'N1 1AA', country: 'GB' };
    const send = (app: TestApp, path: string, key: string, body: unknown) =>
      app.fetch(`/api/v1/orgs/${c.org.id}${path}`, { method: 'POST', headers: { ...jsonHeaders(c.key), 'idempotency-key': key }, body: JSON.stringify(body) });

    const accepted = await send(first, '/domains', `restart-reg-${name}`, registration);
    expect(accepted.status).toBe(202);
    const operation = await readJson<{ id: string }>(accepted);
    const created = await send(first, '/contacts', `restart-contact-${name}`, contact);
    expect(created.status).toBe(201);
    const madeContact = await readJson<{ id: string }>(created);
    await first.close();

    second = await startTestApp({ env });
    const replayed = await send(second, '/domains', `restart-reg-${name}`, registration);
    expect([replayed.status, replayed.headers.get('idempotent-replayed')]).toEqual([202, 'true']);
    expect((await readJson<{ id: string }>(replayed)).id).toBe(operation.id);
    const again = await send(second, '/contacts', `restart-contact-${name}`, contact);
    expect([again.status, again.headers.get('idempotent-replayed')]).toEqual([201, 'true']);
    expect((await readJson<{ id: string }>(again)).id).toBe(madeContact.id);
    const { rows } = await second.deps.db.query<{ n: number }>('SELECT count(*)::int AS n FROM operations WHERE org_id = $1', [c.org.id]);
    expect(rows[0]!.n).toBe(1);
  });
});
