import http from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../../../test/support/testApp.js';
import { startPowerDns, type PowerDns } from '../../../test/support/powerdns.js';
import { readJson, simulatedClientAddress, type MessageErrorBody } from '../../../test/support/http.js';
import { insertUser } from '../../../test/support/factories.js';
import { acmeDigest, acmeDnsCustomer, registerAcmeDns, updateAcmeDns, type AcmeDnsCredentials } from '../../../test/support/acmeDns.js';
import { setAcmeDnsTxtValues } from './registrations.repository.js';
import { randomBase62 } from '../../ids.js';
import { modeOf } from '../../db/modeScope.js';

/**
 * What ACME-DNS updates may cost (docs/operations.md, ACME-DNS budgets): a budget per organisation, per
 * person who made the registrations and for the one shared zone, each refusal a 429 with
 * Retry-After; and a small body, read only once the credential and the budgets allowed it.
 */
const ZONE = `acme-${randomBase62(6).toLowerCase()}.test`;
/** The zone takes 8 changes a second here, a quarter of them (2) from free organisations together. */
const ZONE_UPDATES_PER_SECOND = 8;

let pdns: PowerDns;
let app: TestApp;
beforeAll(async () => {
  pdns = await startPowerDns();
  app = await startTestApp({
    env: {
      DNS_PROVIDER_URL: pdns.apiUrl,
      DNS_PROVIDER_TOKEN: pdns.apiKey,
      ACME_DNS_ZONE: ZONE,
      ACME_DNS_NAMESERVERS: 'ns1.example.net',
      ACME_DNS_ZONE_UPDATES_PER_SECOND: String(ZONE_UPDATES_PER_SECOND),
    },
  });
});
afterAll(async () => {
  await app?.close();
  await pdns?.close();
});

/** Registrations whose value is already set (straight in the database), so sending it again changes nothing. */
async function withValue(accounts: AcmeDnsCredentials[]): Promise<{ account: AcmeDnsCredentials; txt: string }[]> {
  return Promise.all(
    accounts.map(async (account) => {
      const txt = acmeDigest();
      await setAcmeDnsTxtValues(app.deps.db, modeOf(true), { id: account.id, values: [txt] });
      return { account, txt };
    }),
  );
}

interface Answer {
  status: number;
  retryAfter: string | null;
  body: MessageErrorBody | { txt: string };
}

/** `count` updates at once, round robin over `sets`, each from its own address. */
async function burst(sets: { account: AcmeDnsCredentials; txt: string }[], count: number): Promise<Answer[]> {
  return Promise.all(
    Array.from({ length: count }, async (_, i) => {
      const { account, txt } = sets[i % sets.length]!;
      const res = await updateAcmeDns(app, account, txt, simulatedClientAddress());
      return { status: res.status, retryAfter: res.headers.get('retry-after'), body: await readJson<Answer['body']>(res) };
    }),
  );
}

const refusedFor = (answers: Answer[], budget: RegExp) =>
  answers.filter((a) => a.status === 429 && 'code' in a.body && a.body.code === 'RATE_LIMITED' && Number(a.retryAfter) >= 1 && budget.test(a.body.detail));

async function registrations(customer: { orgId: string; key: string }, count: number): Promise<AcmeDnsCredentials[]> {
  const made: AcmeDnsCredentials[] = [];
  for (let i = 0; i < count; i += 1) made.push(await registerAcmeDns(app, customer.orgId, customer.key));
  return made;
}

describe('ACME-DNS update budgets', () => {
  it('counts all of an organisation’s registrations against one budget scaled by its plan, and others are answered meanwhile', async () => {
    const free = await withValue(await registrations(await acmeDnsCustomer(app, 'free'), 4));
    // Ten a registration, well under its own limit (30 a second): only the organisation's budget (10 a second on free) binds.
    const answers = await burst(free, 40);
    expect(refusedFor(answers, /organisation/).length).toBeGreaterThanOrEqual(10);
    expect(answers.every((a) => a.status === 200 || a.status === 429)).toBe(true);

    // The same burst from an enterprise organisation (20 times the budget) is answered whole.
    const enterprise = await withValue(await registrations(await acmeDnsCustomer(app, 'enterprise'), 4));
    expect((await burst(enterprise, 40)).map((a) => a.status)).toEqual(Array(40).fill(200));
    // Another free organisation is not refused for the first one's burst.
    const [other] = await withValue(await registrations(await acmeDnsCustomer(app, 'free'), 1));
    expect((await updateAcmeDns(app, other!.account, acmeDigest())).status).toBe(200);
  });

  it('counts every registration one person made, in each of their organisations, against one budget', async () => {
    const person = await insertUser(app.deps);
    const sets = [];
    for (let i = 0; i < 4; i += 1) sets.push(...(await withValue(await registrations(await acmeDnsCustomer(app, 'free', person), 1))));
    // Ten an organisation: within each one's budget, past the person's (three times one organisation's).
    let refused: Answer[] = [];
    for (let round = 0; round < 5 && refused.length === 0; round += 1) refused = refusedFor(await burst(sets, 40), /person/);
    expect(refused.length).toBeGreaterThanOrEqual(1);
  });

  it('gives free organisations together a share of the zone’s changes a second, and a paying one’s change is made meanwhile', async () => {
    const accounts = [...(await registrations(await acmeDnsCustomer(app, 'free'), 3)), ...(await registrations(await acmeDnsCustomer(app, 'free'), 3))];
    // Twelve changes at once: each organisation within its own budget, all of them past the free share (2 a second).
    const answers = await burst(
      accounts.flatMap((account) => [acmeDigest(), acmeDigest()].map((txt) => ({ account, txt }))),
      12,
    );
    expect(refusedFor(answers, /zone/).length).toBeGreaterThanOrEqual(4);
    expect(refusedFor(answers, /organisation/)).toEqual([]);

    const [paying] = await registrations(await acmeDnsCustomer(app, 'pro'), 1);
    const txt = acmeDigest();
    expect((await updateAcmeDns(app, paying!, txt)).status).toBe(200);
    expect(await pdns.resolver().resolveTxt(paying!.fulldomain)).toEqual([[txt]]);
  });
});

/** An update whose headers are sent and whose body never is: the status it is answered with, if any within 5 s. */
function statusWithoutBody(headers: Record<string, string>): Promise<number | 'no answer'> {
  return new Promise((resolve, reject) => {
    const req = http.request(`${app.url}/api/v1/acme-dns/update`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'content-length': '200', 'x-forwarded-for': simulatedClientAddress(), ...headers },
    });
    const timer = setTimeout(() => {
      req.destroy();
      resolve('no answer');
    }, 5_000);
    req.on('response', (res) => {
      clearTimeout(timer);
      res.resume();
      req.destroy();
      resolve(res.statusCode!);
    });
    req.on('error', (err) => {
      clearTimeout(timer);
      reject(err);
    });
    req.flushHeaders();
  });
}

describe('what one update may make the api read', () => {
  it('refuses a body larger than an update needs', async () => {
    const [account] = await registrations(await acmeDnsCustomer(app, 'enterprise'), 1);
    const txt = acmeDigest();
    const padded = await updateAcmeDns(app, account!, txt, app.clientAddress, { subdomain: account!.subdomain, txt, padding: 'x'.repeat(4_000) });
    expect(padded.status).toBe(413);
    expect(await readJson<MessageErrorBody>(padded)).toMatchObject({ code: 'PAYLOAD_TOO_LARGE' });
    expect((await updateAcmeDns(app, account!, txt)).status).toBe(200);
  });

  it('answers a wrong credential and a spent budget before the body is sent', async () => {
    const [set] = await withValue(await registrations(await acmeDnsCustomer(app, 'free'), 1));
    const { account } = set!;
    expect(await statusWithoutBody({ 'x-api-user': account.username, 'x-api-key': randomBase62(40) })).toBe(401);
    // Spend the organisation's budget, then send one more without its body.
    await expect.poll(async () => refusedFor(await burst([set!], 20), /organisation/).length).toBeGreaterThan(0);
    expect(await statusWithoutBody({ 'x-api-user': account.username, 'x-api-key': account.password })).toBe(429);
  });
});

describe('ACME-DNS not offered', () => {
  let bare: TestApp;
  beforeAll(async () => {
    bare = await startTestApp();
  });
  afterAll(async () => bare?.close());

  it('counts each 404 against the client address’s failed-authentication limit', async () => {
    const from = simulatedClientAddress();
    const statuses: number[] = [];
    for (let i = 0; i < 30; i += 1) {
      const res = await bare.fetch('/api/v1/acme-dns/update', {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-api-user': crypto.randomUUID(), 'x-api-key': randomBase62(40), 'x-forwarded-for': from },
        body: JSON.stringify({ subdomain: crypto.randomUUID(), txt: acmeDigest() }),
      });
      statuses.push(res.status);
    }
    expect(statuses[0]).toBe(404);
    expect(statuses.filter((s) => s === 429).length).toBeGreaterThanOrEqual(1);
    expect(statuses.every((s) => s === 404 || s === 429)).toBe(true);
  });
});
