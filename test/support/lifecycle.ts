import { expect } from 'vitest';
import type { TestApp } from './testApp.js';
import { bearer, jsonHeaders } from './actors.js';
import type { customerFactory, OperationBody } from './customers.js';
import { readJson } from './http.js';

/** A year of .com in test mode, registered or renewed (migrations/1763800002000_tld_prices.sql). */
export const COM_YEAR_PRICE = 1299;

export type LifecycleCustomer = Awaited<ReturnType<ReturnType<typeof customerFactory>['customer']>>;

export interface DomainBody {
  name: string;
  status: string;
  expires_at: string;
  auto_renew: boolean;
}

/** What the domain-lifecycle tests do through the api: register, read, move the test clock, list renewals. */
export function lifecycleActions(app: TestApp, f: ReturnType<typeof customerFactory>) {
  async function domainOf(c: LifecycleCustomer, name: string): Promise<DomainBody> {
    return readJson<DomainBody>(await app.fetch(`/api/v1/orgs/${c.org.id}/domains/${name}`, { headers: bearer(c.key) }));
  }

  /** A one-year .com with a fresh name, its registration waited for until it has succeeded. */
  async function registered(c: LifecycleCustomer, props: { autoRenew: boolean; label: string }): Promise<DomainBody> {
    const name = `${props.label}-${Date.now().toString(36)}${Math.random().toString(36).slice(2, 6)}.com`;
    const res = await f.register(c, { name, years: 1, registrant_contact_id: c.contactId, auto_renew: props.autoRenew }, `r-${name}`);
    expect(res.status).toBe(202);
    expect((await f.pollUntilFinished(c, res.headers.get('location')!)).status).toBe('succeeded');
    return domainOf(c, name);
  }

  async function advance(c: LifecycleCustomer, name: string, days: number): Promise<{ offset_days: number; status: string; now: string }> {
    const res = await app.fetch(`/api/v1/orgs/${c.org.id}/domains/${name}/test-clock`, {
      method: 'POST',
      headers: jsonHeaders(c.key),
      body: JSON.stringify({ advance_days: days }),
    });
    expect(res.status).toBe(200);
    return readJson(res);
  }

  async function renewOperations(c: LifecycleCustomer): Promise<OperationBody[]> {
    const page = await readJson<{ data: OperationBody[] }>(await app.fetch(`/api/v1/orgs/${c.org.id}/operations?limit=100`, { headers: bearer(c.key) }));
    return page.data.filter((op) => op.type === 'domain.renew');
  }

  return { domainOf, registered, advance, renewOperations };
}
