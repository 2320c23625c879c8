import type { TestApp } from './testApp.js';
import { bearer, jsonHeaders, uniqueEmail } from './actors.js';
import { insertContact, insertOrg, insertUser, sessionOf } from './factories.js';
import type { ContactFields } from '../../src/features/contacts/contacts.repository.js';
import { readJson } from './http.js';
import { creditLiveBalance } from './billing.js';
import type { OperationBody } from './customers.js';

export interface LiveCustomer {
  token: string;
  org: { id: string; name: string };
  contactId: string;
}

export type LiveCustomers = ReturnType<typeof liveCustomers>;

/** A registrant the live registrar accepts (a US contact with its state). */
export const GRACE_HOPPER: Partial<ContactFields> = {
  firstName: 'Grace',
  lastName: 'Hopper',
  phone: '+12025550123',
  address1: '1 Navy Way',
  city: 'Arlington',
  state: 'VA',
  postalCode: '22202',
  country: 'US',
};

/** Signed-in owners acting in live mode (sessions do), with a live balance and a registrant contact. */
export function liveCustomers(app: TestApp) {
  return {
    /** Written straight to the database (factories.ts); the contact is Grace Hopper in Virginia unless `contact` says otherwise. */
    async customer(balance: number, contact: Partial<ContactFields> = {}): Promise<LiveCustomer> {
      const user = await insertUser(app.deps, uniqueEmail('live'));
      const org = await insertOrg(app.deps, { owner: user });
      // Live money as an operator credits it: the API refuses unpaid live top-ups.
      await creditLiveBalance(app, org.id, balance);
      const contactId = await insertContact(app.deps, { orgId: org.id, livemode: true, fields: { ...GRACE_HOPPER, email: user.email, ...contact } });
      return { token: await sessionOf(app.deps, user), org, contactId };
    },

    async balanceOf(c: LiveCustomer): Promise<{ available: number; reserved: number }> {
      return readJson(await app.fetch(`/api/v1/orgs/${c.org.id}/billing/balance`, { headers: bearer(c.token) }));
    },

    post(c: LiveCustomer, path: string, key: string, body: unknown): Promise<Response> {
      return app.fetch(path, { method: 'POST', headers: { ...jsonHeaders(c.token), 'idempotency-key': key }, body: JSON.stringify(body) });
    },

    /** Polls an operation until it is terminal (bounded). */
    async finish(token: string, location: string, intervalMs = 100, attempts = 300): Promise<OperationBody> {
      for (let i = 0; i < attempts; i += 1) {
        const op = await readJson<OperationBody>(await app.fetch(location, { headers: bearer(token) }));
        if (op.status !== 'pending' && op.status !== 'running') return op;
        await new Promise((resolve) => setTimeout(resolve, intervalMs));
      }
      throw new Error(`operation ${location} did not finish`);
    },
  };
}
