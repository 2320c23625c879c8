/**
 * ACME-DNS registrations and updates as their clients make them (docs/certificates.md), for the
 * tests in test/dns/acmeDns*.test.ts.
 */
import type { TestApp } from './testApp.js';
import { jsonHeaders } from './actors.js';
import { readJson } from './http.js';
import { insertKey, insertOrg, insertUser, type FactoryUser } from './factories.js';
import { DNS_SCOPES } from './domains.js';
import type { Plan } from '../../src/auth/organizations.js';
import { randomBase62 } from '../../src/ids.js';

export interface AcmeDnsCredentials {
  id: string;
  username: string;
  password: string;
  fulldomain: string;
  subdomain: string;
  allowfrom: string[];
}

export const acmeDigest = () => randomBase62(43);

/** `POST /register` with `token` (a key or a session), optionally with a body. */
export function registerAcmeDnsAs(app: TestApp, orgId: string, token: string, body?: unknown, init: { headers?: Record<string, string> } = {}): Promise<Response> {
  return app.fetch(`/api/v1/orgs/${orgId}/acme-dns/register`, {
    method: 'POST',
    headers: { ...jsonHeaders(token), ...init.headers },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
}

export async function registerAcmeDns(app: TestApp, orgId: string, token: string, body?: unknown): Promise<AcmeDnsCredentials> {
  const res = await registerAcmeDnsAs(app, orgId, token, body);
  if (res.status !== 201) throw new Error(`registration refused: ${res.status} ${await res.text()}`);
  return readJson<AcmeDnsCredentials>(res);
}

/** An update as goacmedns sends it (capitalised field names), from `from`; `body` replaces the one made. */
export function updateAcmeDns(
  app: TestApp,
  account: Pick<AcmeDnsCredentials, 'username' | 'password' | 'subdomain'>,
  txt: string,
  from = app.clientAddress,
  body?: unknown,
): Promise<Response> {
  return app.fetch('/api/v1/acme-dns/update', {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-api-user': account.username, 'x-api-key': account.password, 'x-forwarded-for': from },
    body: JSON.stringify(body ?? { SubDomain: account.subdomain, Txt: txt }),
  });
}

/** An organisation on `plan` owned by `owner` (a new user unless given), with a live DNS key of the owner's. */
export async function acmeDnsCustomer(app: TestApp, plan: Plan, owner?: FactoryUser): Promise<{ user: FactoryUser; orgId: string; key: string }> {
  const user = owner ?? (await insertUser(app.deps));
  const org = await insertOrg(app.deps, { owner: user, plan });
  const { key } = await insertKey(app.deps, { user, scopes: DNS_SCOPES, mode: 'live' });
  return { user, orgId: org.id, key };
}
