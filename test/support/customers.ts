import { expect } from 'vitest';
import type { TestApp } from './testApp.js';
import { bearer, jsonHeaders, uniqueEmail } from './actors.js';
import { insertCustomer } from './factories.js';
import { readJson } from './http.js';

export interface OperationBody {
  id: string;
  status: string;
  type: string;
  domain: string;
  result: Record<string, unknown> | null;
  error: { code: string; detail: string } | null;
}

export const SCOPES = ['domains:read', 'domains:write', 'contacts:write', 'billing:read', 'billing:write'];

/** Test-mode customers of an app: an org, a test key, a balance and a registrant contact. */
export function customerFactory(app: TestApp) {
  /**
   * An org with a test key, a test-mode balance and a registrant contact, written straight to the
   * database (factories.ts). `plan` is set before the first request on the org path, as the limiter
   * caches plans for a minute (src/http/rateLimit.ts).
   */
  async function customer(balance: number, plan: 'free' | 'pro' | 'enterprise' = 'free') {
    const c = await insertCustomer(app.deps, { scopes: SCOPES, mode: 'test', balance, plan, email: uniqueEmail('registrant') });
    return { session: c.session, org: c.org, key: c.key, contactId: c.contactId, email: c.email };
  }

  const register = (c: { org: { id: string }; key: string }, body: Record<string, unknown>, idempotencyKey: string) =>
    app.fetch(`/api/v1/orgs/${c.org.id}/domains`, {
      method: 'POST',
      headers: { ...jsonHeaders(c.key), 'idempotency-key': idempotencyKey },
      body: JSON.stringify(body),
    });

  async function balance(c: { org: { id: string }; key: string }) {
    return readJson<{ available: number; reserved: number }>(await app.fetch(`/api/v1/orgs/${c.org.id}/billing/balance`, { headers: bearer(c.key) }));
  }

  async function pollUntilFinished(c: { key: string }, location: string): Promise<OperationBody> {
    for (let i = 0; i < 300; i += 1) {
      const res = await app.fetch(location, { headers: bearer(c.key) });
      const op = await readJson<OperationBody>(res);
      if (op.status !== 'pending' && op.status !== 'running') return op;
      expect(res.headers.get('retry-after')).toBe('1');
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
    throw new Error('operation did not finish');
  }

  return { customer, register, balance, pollUntilFinished };
}
