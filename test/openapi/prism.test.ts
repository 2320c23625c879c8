/**
 * The reference tells the whole truth: a journey of real calls, happy and refused, goes through
 * Stoplight Prism's validation proxy (an OpenAPI validator we did not write) in front of the real
 * app, and any answer the document does not describe (an undeclared status, a body or header off
 * its schema) fails the test. Prism runs without `--errors`, which would make it answer invalid
 * requests itself: the refused calls must reach the app. It reports every violation, of the request
 * and of the response, in the `sl-violations` header instead.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createServer } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../support/testApp.js';
import { runCompiled, type RunningProcess } from '../support/processes.js';
import { creditBalance, insertContact, insertKey, insertOrg, insertUser, sessionOf, ADA_LOVELACE } from '../support/factories.js';
import { uniqueEmail } from '../support/actors.js';
import { SCOPES } from '../../src/auth/scopes.js';

interface Call {
  name: string;
  method?: string;
  path: string;
  token?: string | null;
  headers?: Record<string, string>;
  body?: unknown;
  status: number;
  /** The request breaks the document on purpose (a bad body): Prism may say so, but not about the answer. */
  invalidRequest?: true;
}

interface Violation {
  location: string[];
  severity: string;
  code: string | number;
  message: string;
}

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

let app: TestApp;
let prism: RunningProcess | undefined;
let prismUrl: string;
let dir: string;

beforeAll(async () => {
  app = await startTestApp({ worker: true });
  dir = await mkdtemp(path.join(os.tmpdir(), 'prism-'));
  // The document exactly as the app serves it.
  const documentFile = path.join(dir, 'openapi.json');
  await writeFile(documentFile, await (await app.fetch('/api/v1/openapi.json')).text());
  const port = await freePort();
  prismUrl = `http://127.0.0.1:${port}`;
  prism = runCompiled('node_modules/@stoplight/prism-cli/dist/index.js', ['proxy', documentFile, app.url, '-h', '127.0.0.1', '-p', String(port)], {});
  await prism.waitForOutput(/Prism is listening/, 60_000);
});

afterAll(async () => {
  if (prism && prism.child.exitCode === null) {
    prism.child.kill('SIGTERM');
    const stubborn = setTimeout(() => prism?.child.kill('SIGKILL'), 5_000);
    await prism.exited;
    clearTimeout(stubborn);
  }
  await app?.close();
  if (dir) await rm(dir, { recursive: true, force: true });
});

const violations: { call: string; status: number; violation: Violation }[] = [];
let calls = 0;

async function send(call: Call, defaultToken: string): Promise<Response> {
  const token = call.token === undefined ? defaultToken : call.token;
  const res = await fetch(`${prismUrl}${call.path}`, {
    method: call.method ?? 'GET',
    headers: {
      // Prism passes it on: this file's failed authentications count on an address of its own.
      'x-forwarded-for': app.clientAddress,
      ...(token ? { authorization: `Bearer ${token}` } : {}),
      ...(call.body !== undefined ? { 'content-type': 'application/json' } : {}),
      ...call.headers,
    },
    ...(call.body !== undefined ? { body: JSON.stringify(call.body) } : {}),
  });
  calls += 1;
  const header = res.headers.get('sl-violations');
  const found: Violation[] = header ? (JSON.parse(header.replace(/^Too many violations! /, '')) as Violation[]) : [];
  for (const violation of found) {
    if (call.invalidRequest && violation.location[0] === 'request') continue;
    violations.push({ call: call.name, status: res.status, violation });
  }
  const text = await res.clone().text();
  expect.soft(res.status, `${call.name}: ${text.slice(0, 300)}`).toBe(call.status);
  return res;
}

async function json<T>(res: Response): Promise<T> {
  return (await res.json()) as T;
}

describe('the OpenAPI document, checked by Prism against the real app', () => {
  it('describes every answer of a journey through happy and refused calls', { timeout: 120_000 }, async () => {
    const user = await insertUser(app.deps, uniqueEmail('prism'));
    const org = await insertOrg(app.deps, { owner: user, plan: 'enterprise' });
    await creditBalance(app.deps, { orgId: org.id, livemode: false, amount: 100_000, by: user });
    const { key } = await insertKey(app.deps, { user, scopes: [...SCOPES], mode: 'test', name: 'prism' });
    const { key: readOnly } = await insertKey(app.deps, { user, scopes: ['domains:read'], mode: 'test', name: 'read only' });
    const session = await sessionOf(app.deps, user);
    const poorUser = await insertUser(app.deps, uniqueEmail('poor'));
    const poorOrg = await insertOrg(app.deps, { owner: poorUser, plan: 'free' });
    const { key: poorKey } = await insertKey(app.deps, { user: poorUser, scopes: [...SCOPES], mode: 'test', name: 'poor' });
    const poorContact = await insertContact(app.deps, { orgId: poorOrg.id, livemode: false });
    const o = `/api/v1/orgs/${org.id}`;
    const go = (call: Call) => send(call, key);

    await go({ name: 'health', path: '/healthz', token: null, status: 200 });
    await go({ name: 'no token', path: '/api/v1/me', token: null, status: 401, invalidRequest: true });
    await go({ name: 'bad token', path: '/api/v1/me', token: 'svc_test_not-a-key', status: 401 });
    await go({ name: 'me', path: '/api/v1/me', status: 200 });
    await go({ name: 'me by session', path: '/api/v1/me', token: session, status: 200 });
    await go({ name: 'keys', path: '/api/v1/me/api-keys', status: 200 });
    await go({ name: 'key presets', path: '/api/v1/me/api-keys/presets', status: 200 });
    await go({ name: 'orgs', path: '/api/v1/orgs', status: 200 });
    await go({ name: 'org', path: o, status: 200 });
    await go({ name: 'another org', path: '/api/v1/orgs/org_nope', status: 403 });
    await go({ name: 'members', path: `${o}/members`, status: 200 });
    await go({ name: 'tlds', path: '/api/v1/domains/tlds', status: 200 });
    await go({ name: 'availability', path: '/api/v1/domains/availability?name=prism-free.com', status: 200 });
    await go({ name: 'bulk availability', method: 'POST', path: '/api/v1/domains/availability/bulk', body: { names: ['a-prism.com', 'not a name'] }, status: 200 });
    await go({ name: 'balance', path: `${o}/billing/balance`, status: 200 });
    await go({ name: 'transactions', path: `${o}/billing/transactions`, status: 200 });
    await go({ name: 'top-ups', path: `${o}/billing/top-ups`, status: 200 });
    await go({ name: 'unknown top-up', path: `${o}/billing/top-ups/tu_nope`, status: 404 });
    await go({ name: 'limit: read-only key', method: 'PATCH', path: o, token: readOnly, body: { monthly_spend_limit: 50_000 }, status: 403 });
    await go({ name: 'test-mode limit', method: 'PATCH', path: o, body: { monthly_spend_limit: 50_000 }, status: 200 });

    const created = await json<{ id: string }>(
      await go({ name: 'create key', method: 'POST', path: '/api/v1/me/api-keys', body: { name: 'ci', preset: 'ci' }, status: 201 }),
    );
    await go({ name: 'restrict key', method: 'PATCH', path: `/api/v1/me/api-keys/${created.id}`, body: { allowed_domains: ['*.example.com'] }, status: 200 });
    await go({ name: 'delete key', method: 'DELETE', path: `/api/v1/me/api-keys/${created.id}`, status: 204 });
    await go({ name: 'delete key again', method: 'DELETE', path: `/api/v1/me/api-keys/${created.id}`, status: 404 });

    const contactBody = {
      first_name: ADA_LOVELACE.firstName,
      last_name: ADA_LOVELACE.lastName,
      email: 'ada@example.com',
      phone: ADA_LOVELACE.phone,
      address1: ADA_LOVELACE.address1,
      city: ADA_LOVELACE.city,
      postal_code: ADA_LOVELACE.postalCode,
      country: ADA_LOVELACE.country,
    };
    const contact = await json<{ id: string }>(await go({ name: 'create contact', method: 'POST', path: `${o}/contacts`, body: contactBody, status: 201 }));
    await go({ name: 'contacts', path: `${o}/contacts`, status: 200 });
    await go({ name: 'contact', path: `${o}/contacts/${contact.id}`, status: 200 });
    await go({ name: 'update contact', method: 'PATCH', path: `${o}/contacts/${contact.id}`, body: { city: 'Cambridge' }, status: 200 });
    await go({ name: 'unknown contact', path: `${o}/contacts/ct_nope`, status: 404 });

    const name = `prism-${Date.now().toString(36)}.com`;
    const registration = { name, years: 1, registrant_contact_id: contact.id };
    await go({ name: 'dry-run register', method: 'POST', path: `${o}/domains`, headers: { 'dry-run': 'true' }, body: registration, status: 200 });
    await go({ name: 'register: bad body', method: 'POST', path: `${o}/domains`, body: { years: 0 }, status: 422, invalidRequest: true });
    await go({ name: 'register: read-only key', method: 'POST', path: `${o}/domains`, token: readOnly, body: registration, status: 403 });
    await go({
      name: 'register: no money',
      method: 'POST',
      path: `/api/v1/orgs/${poorOrg.id}/domains`,
      token: poorKey,
      body: { ...registration, registrant_contact_id: poorContact },
      status: 402,
    });
    const idem = { 'idempotency-key': `prism-${name}` };
    const operation = await json<{ id: string }>(await go({ name: 'register', method: 'POST', path: `${o}/domains`, headers: idem, body: registration, status: 202 }));
    await go({ name: 'register: replay', method: 'POST', path: `${o}/domains`, headers: idem, body: registration, status: 202 });
    await go({ name: 'register: key reused', method: 'POST', path: `${o}/domains`, headers: idem, body: { ...registration, years: 2 }, status: 409 });
    for (let i = 0; i < 100; i += 1) {
      const polled = await json<{ status: string }>(await app.fetch(`${o}/operations/${operation.id}`, { headers: { authorization: `Bearer ${key}` } }));
      if (polled.status === 'succeeded') break;
      expect(['pending', 'running']).toContain(polled.status);
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
    await go({ name: 'operation', path: `${o}/operations/${operation.id}`, status: 200 });
    await go({ name: 'unknown operation', path: `${o}/operations/op_nope`, status: 404 });
    await go({ name: 'cancel a registration', method: 'POST', path: `${o}/operations/${operation.id}/cancel`, status: 409 });
    await go({ name: 'operations', path: `${o}/operations`, status: 200 });

    const d = `${o}/domains/${name}`;
    await go({ name: 'domains', path: `${o}/domains`, status: 200 });
    await go({ name: 'domain', path: d, status: 200 });
    await go({ name: 'unknown domain', path: `${o}/domains/prism-unknown.com`, status: 404 });
    await go({ name: 'update unknown domain', method: 'PATCH', path: `${o}/domains/prism-unknown.com`, body: { auto_renew: true }, status: 404 });
    await go({ name: 'lock', method: 'PATCH', path: d, body: { locked: true }, status: 200 });
    await go({ name: 'auth code while locked', path: `${d}/auth-code`, status: 409 });
    await go({ name: 'unlock', method: 'PATCH', path: d, body: { locked: false }, status: 200 });
    await go({ name: 'auth code', path: `${d}/auth-code`, status: 200 });

    const record = await json<{ id: string }>(
      await go({ name: 'create record', method: 'POST', path: `${d}/records`, body: { type: 'A', name: 'www', content: '192.0.2.1' }, status: 201 }),
    );
    await go({ name: 'records', path: `${d}/records`, status: 200 });
    await go({ name: 'record', path: `${d}/records/${record.id}`, status: 200 });
    await go({ name: 'update record', method: 'PATCH', path: `${d}/records/${record.id}`, body: { ttl: 600 }, status: 200 });
    await go({ name: 'stale record update', method: 'PATCH', path: `${d}/records/${record.id}`, headers: { 'if-match': '"1"' }, body: { ttl: 900 }, status: 409 });
    await go({ name: 'records of unknown domain', path: `${o}/domains/prism-unknown.com/records`, status: 404 });
    await go({
      name: 'batch',
      method: 'POST',
      path: `${d}/records/batch`,
      body: { operations: [{ op: 'create', record: { type: 'TXT', name: '@', content: 'v=spf1 -all' } }] },
      status: 200,
    });
    await go({ name: 'delete record', method: 'DELETE', path: `${d}/records/${record.id}`, status: 204 });
    await go({ name: 'unknown record', path: `${d}/records/${record.id}`, status: 404 });

    await go({ name: 'dry-run renew', method: 'POST', path: `${d}/renew`, headers: { 'dry-run': 'true' }, body: { years: 1 }, status: 200 });
    await go({ name: 'renew above max price', method: 'POST', path: `${d}/renew`, body: { years: 1, max_price: 1 }, status: 409 });
    const renewed = await go({ name: 'renew', method: 'POST', path: `${d}/renew`, headers: { 'idempotency-key': `renew-${name}` }, body: { years: 1 }, status: 200 });
    expect((await json<{ years: number }>(renewed)).years).toBe(1);
    await go({ name: 'test clock', method: 'POST', path: `${d}/test-clock`, body: { advance_days: 1 }, status: 200 });
    await go({ name: 'events', path: `${o}/events`, status: 200 });
    await go({ name: 'unknown event', path: `${o}/events/evt_nope`, status: 404 });

    // 429: the free plan's bulk pool (2 a second, 10 a minute), spent directly, then one call through Prism.
    const bulk = { method: 'POST', headers: { authorization: `Bearer ${poorKey}`, 'content-type': 'application/json' }, body: '{"names":["a-prism.com"]}' };
    for (let i = 0; i < 30 && (await app.fetch('/api/v1/domains/availability/bulk', bulk)).status !== 429; i += 1);
    await send({ name: 'rate limited', method: 'POST', path: '/api/v1/domains/availability/bulk', body: { names: ['a-prism.com'] }, status: 429 }, poorKey);

    expect(calls).toBe(64);
    expect(violations).toEqual([]);
  });
});
