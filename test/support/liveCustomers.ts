import type { TestApp } from './testApp.js';
import { bearer, createOrg, jsonHeaders, sessionToken, uniqueEmail } from './actors.js';
import { readJson } from './http.js';
import { creditLiveBalance } from './billing.js';
import type { OperationBody } from './customers.js';

export interface LiveCustomer {
  token: string;
  org: { id: string; name: string };
  contactId: string;
}

export type LiveCustomers = ReturnType<typeof liveCustomers>;

/** Signed-in owners acting in live mode (sessions do), with a live balance and a registrant contact. */
export function liveCustomers(app: TestApp) {
  return {
    async customer(balance: number, contactOverrides: Record<string, unknown> = {}): Promise<LiveCustomer> {
      const email = uniqueEmail('live');
      const token = await sessionToken(app, email);
      const org = await createOrg(app, token);
      // Live top-ups over HTTP are refused unless paid: credited as an operator does.
      await creditLiveBalance(app, org.id, balance);
      const contact = await readJson<{ id: string }>(
        await app.fetch(`/api/v1/orgs/${org.id}/contacts`, {
          method: 'POST',
          headers: jsonHeaders(token),
          body: JSON.stringify({ first_name: 'Grace', last_name: 'Hopper', email, phone: '+12025550123', address1: '1 Navy Way', city: 'Arlington', state: 'VA', postal_code: '22202', country: 'US', ...contactOverrides }),
        }),
      );
      return { token, org, contactId: contact.id };
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
