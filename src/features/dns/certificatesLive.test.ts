import type { X509Certificate } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../../../test/support/testApp.js';
import { startPowerDns, type PowerDns } from '../../../test/support/powerdns.js';
import { startPebble, type Pebble } from '../../../test/support/pebble.js';
import { legoCertificates, legoRun, type LegoRun } from '../../../test/support/lego.js';
import { createKey, jsonHeaders, bearer } from '../../../test/support/actors.js';
import { readJson, type MessageErrorBody } from '../../../test/support/http.js';
import { dnsCustomer, insertActiveDomain, type Customer } from '../../../test/support/domains.js';
import { resolveLego } from '../../../scripts/lib/lego.js';

/**
 * A real certificate, end to end and offline (docs/certificates.md): Debian's pebble (a real ACME
 * server) validates DNS-01 challenges by asking the test's PowerDNS, which serves the live zones of
 * an app whose DNS provider it is; Debian's lego gets a certificate for example.test and
 * *.example.test, once through the httpreq provider with a key made with the certificates preset,
 * once through the acme-dns provider with an account registered through the API (as cert-manager
 * users do: the account file written by hand; Debian builds lego without that provider, so this run
 * uses the same version built from the Go module proxy, scripts/lib/lego.ts). Each run's time from
 * `lego run` to the certificate is printed.
 */
const DOMAIN = 'example.test';
const ACME_ZONE = 'acme-dns.example.net';
const LEGO_TIMEOUT_MS = 90_000;

let pdns: PowerDns;
let pebble: Pebble;
let app: TestApp;
let scratch: string;
let c: Customer;
let legoWithAcmeDns: string;
beforeAll(async () => {
  // Built once into a cache when missing (.ci/run builds it before the tests).
  legoWithAcmeDns = await resolveLego((line) => console.log(`[certificates] ${line}`));
  scratch = await mkdtemp(path.join(os.tmpdir(), 'certificates-test-'));
  pdns = await startPowerDns();
  pebble = await startPebble({ dnsServer: `127.0.0.1:${pdns.dnsPort}` });
  app = await startTestApp({ env: { DNS_PROVIDER_URL: pdns.apiUrl, DNS_PROVIDER_TOKEN: pdns.apiKey, ACME_DNS_ZONE: ACME_ZONE } });
  c = await dnsCustomer(app, 'live');
  await insertActiveDomain(app, c, { name: DOMAIN });
}, 15 * 60_000);
afterAll(async () => {
  await app?.close();
  await pebble?.close();
  await pdns?.close();
  if (scratch) await rm(scratch, { recursive: true, force: true });
});

const records = () => `/api/v1/orgs/${c.org.id}/domains/${DOMAIN}/records`;

const txt = (name: string) =>
  pdns
    .resolver()
    .resolveTxt(name)
    .then((answers) => answers.map((strings) => strings.join('')).sort(), (err: NodeJS.ErrnoException) => err.code);

/** What lego got: the certificate's names and issuer, and how long it took. */
async function issued(run: LegoRun, dir: string) {
  if (run.code !== 0) throw new Error(`lego exited ${run.code} after ${Math.round(run.elapsedMs)} ms:\n${run.output}\npebble:\n${pebble.output().slice(-5_000)}`);
  const [leaf, issuer] = await legoCertificates(dir, DOMAIN);
  console.log(`[certificates] ${path.basename(dir)}: ${leaf!.subjectAltName} from ${leaf!.issuer.replace(/\n/g, ', ')} in ${(run.elapsedMs / 1000).toFixed(1)} s`);
  return { leaf: leaf!, issuer: issuer!, elapsedMs: run.elapsedMs };
}

function expectIssuedForDomainAndWildcard(leaf: X509Certificate, issuer: X509Certificate) {
  expect(leaf.subjectAltName!.split(', ').sort()).toEqual([`DNS:*.${DOMAIN}`, `DNS:${DOMAIN}`]);
  expect(leaf.issuer).toContain('Pebble Intermediate CA');
  expect(leaf.verify(issuer.publicKey)).toBe(true);
  expect(new Date(leaf.validTo).getTime()).toBeGreaterThan(Date.now());
}

describe('certificates from pebble through DNS-01, offline', () => {
  it('lego with httpreq and a Certificates key: the wildcard certificate, the challenge records gone, the key good for nothing else', { timeout: 2 * LEGO_TIMEOUT_MS }, async () => {
    const key = await createKey(app, c.session, {
      name: 'lego',
      preset: 'certificates',
      mode: 'live',
      allowed_records: [`_acme-challenge.${DOMAIN}:TXT`, `_acme-challenge.*.${DOMAIN}:TXT`],
    });
    const dir = path.join(scratch, 'httpreq');
    const run = await legoRun({
      directoryUrl: pebble.directoryUrl,
      tlsCaFile: pebble.tlsCaFile,
      resolver: `127.0.0.1:${pdns.dnsPort}`,
      provider: 'httpreq',
      env: {
        HTTPREQ_ENDPOINT: `${app.url}/api/v1/orgs/${c.org.id}/acme/httpreq`,
        HTTPREQ_USERNAME: 'lego',
        HTTPREQ_PASSWORD: key.key,
        HTTPREQ_POLLING_INTERVAL: '1',
      },
      domains: [DOMAIN, `*.${DOMAIN}`],
      dir,
      timeoutMs: LEGO_TIMEOUT_MS,
    });
    const { leaf, issuer } = await issued(run, dir);
    expectIssuedForDomainAndWildcard(leaf, issuer);

    // Both challenges stood at one name at once (lego presents every challenge before validating
    // any), and each was removed: the key's record changes, oldest first.
    const log = await readJson<{ data: { action: string; target: { name: string } }[] }>(
      await app.fetch(`/api/v1/orgs/${c.org.id}/audit-log?actor=api_key:${key.id}&limit=20`, { headers: bearer(c.session) }),
    );
    expect(log.data.map((e) => `${e.action} ${e.target.name}`).reverse()).toEqual([
      `dns_record.created _acme-challenge.${DOMAIN} TXT`,
      `dns_record.created _acme-challenge.${DOMAIN} TXT`,
      `dns_record.deleted _acme-challenge.${DOMAIN} TXT`,
      `dns_record.deleted _acme-challenge.${DOMAIN} TXT`,
    ]);
    expect(await txt(`_acme-challenge.${DOMAIN}`)).toBe('ENOTFOUND');
    expect((await readJson<{ data: unknown[] }>(await app.fetch(records(), { headers: bearer(c.key) }))).data).toEqual([]);

    // The same key, as a script holding it would try: no A record, no balance.
    const aRecord = await app.fetch(records(), { method: 'POST', headers: jsonHeaders(key.key), body: JSON.stringify({ type: 'A', name: 'www', content: '192.0.2.1' }) });
    expect(aRecord.status).toBe(403);
    expect(await readJson<MessageErrorBody>(aRecord)).toMatchObject({ code: 'RECORD_NOT_ALLOWED' });
    const balance = await app.fetch(`/api/v1/orgs/${c.org.id}/billing/balance`, { headers: bearer(key.key) });
    expect(balance.status).toBe(403);
  });

  it('lego with acme-dns and an account registered through the API: the same certificate, through a CNAME', { timeout: 2 * LEGO_TIMEOUT_MS }, async () => {
    const registered = await app.fetch(`/api/v1/orgs/${c.org.id}/acme-dns/register`, {
      method: 'POST',
      headers: jsonHeaders(c.session),
      body: JSON.stringify({ allowfrom: ['127.0.0.1/32'] }),
    });
    expect(registered.status).toBe(201);
    const account = await readJson<{ id: string; username: string; password: string; fulldomain: string; subdomain: string }>(registered);
    const cname = await app.fetch(records(), { method: 'POST', headers: jsonHeaders(c.session), body: JSON.stringify({ type: 'CNAME', name: '_acme-challenge', content: `${account.fulldomain}.` }) });
    expect(cname.status).toBe(201);
    // lego's acme-dns provider reads accounts by domain from this file (goacmedns storage).
    const storage = path.join(scratch, 'acme-dns-accounts.json');
    const serverUrl = `${app.url}/api/v1/acme-dns`;
    await writeFile(storage, JSON.stringify({ [DOMAIN]: { fulldomain: account.fulldomain, subdomain: account.subdomain, username: account.username, password: account.password, server_url: serverUrl } }), { mode: 0o600 });

    const dir = path.join(scratch, 'acme-dns');
    const run = await legoRun({
      binary: legoWithAcmeDns,
      directoryUrl: pebble.directoryUrl,
      tlsCaFile: pebble.tlsCaFile,
      resolver: `127.0.0.1:${pdns.dnsPort}`,
      provider: 'acme-dns',
      env: { ACME_DNS_API_BASE: serverUrl, ACME_DNS_STORAGE_PATH: storage },
      domains: [DOMAIN, `*.${DOMAIN}`],
      dir,
      timeoutMs: LEGO_TIMEOUT_MS,
    });
    const { leaf, issuer } = await issued(run, dir);
    expectIssuedForDomainAndWildcard(leaf, issuer);

    // ACME-DNS has no clean-up: the registration's name holds this run's two values (apex and
    // wildcard), nothing was written at the customer's own name but the CNAME, and deleting the
    // registration takes its values away.
    const served = await txt(account.fulldomain);
    expect(served).toHaveLength(2);
    expect((await readJson<{ data: { type: string }[] }>(await app.fetch(records(), { headers: bearer(c.key) }))).data.map((r) => r.type)).toEqual(['CNAME']);
    const removed = await app.fetch(`/api/v1/orgs/${c.org.id}/acme-dns/registrations/${account.id}`, { method: 'DELETE', headers: bearer(c.session) });
    expect(removed.status).toBe(204);
    expect(await txt(account.fulldomain)).toBe('ENOTFOUND');
  });
});
