/**
 * The external-dns webhook provider (`--role external-dns-webhook`, docs/external-dns.md) as a
 * process, between external-dns's own client code and the real service: the Go harness beside
 * this file imports external-dns's flags, TXT registry, planner and webhook client and syncs
 * clusters' endpoints through it into live-mode domains served by a real PowerDNS, checked with
 * `dig`. The provider reaches the api through a loopback proxy that names its own client address,
 * as a load balancer would, and can answer for the api (429, 503) to show what external-dns gets.
 */
import { spawn } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../support/testApp.js';
import { startPowerDns, type PowerDns } from '../support/powerdns.js';
import { insertActiveDomain } from '../support/domains.js';
import { bearer, createKey, createOrg, jsonHeaders, sessionToken, uniqueEmail } from '../support/actors.js';
import { readJson, simulatedClientAddress, type FieldErrorBody, type MessageErrorBody } from '../support/http.js';
import { startRecordingProxy, type RecordingProxy, type RecordingProxyOptions } from '../support/recordingProxy.js';
import { runTs, type RunningProcess } from '../support/processes.js';
import { freePort } from '../../scripts/lib/temporalDevServer.js';
import { EXTERNAL_DNS_GO_ENV, EXTERNAL_DNS_HARNESS_DIR } from '../../scripts/lib/externalDnsHarness.js';
import { WEBHOOK_MEDIA_TYPE } from '../../src/externalDnsWebhook/protocol.js';

let pdns: PowerDns;
let app: TestApp;
let proxy: RecordingProxy;
let webhook: RunningProcess;
let webhookUrl: string;
let healthUrl: string;
let ownerKey: string;
let ownerSession: string;
let orgId: string;
const zones = { a: '', b: '', journey: '', denied: '' };
const HARNESS_TESTS = [
  'TestNegotiatesTheZonesTheKeyMayTouch',
  'TestCreatesUpdatesAndDeletesWithOwnership',
  'TestLeavesAnotherOwnersRecordsAlone',
  'TestRespectsTheZoneFilters',
  'TestAnApexCNAMEBecomesAnAlias',
  'TestJourneyOfTenServices',
];
/** What the proxy answers for the api instead of forwarding, taken one per request while set. */
const faults: NonNullable<ReturnType<NonNullable<RecordingProxyOptions['fault']>>>[] = [];

async function createRecord(domain: string, body: Record<string, unknown>): Promise<void> {
  const res = await app.fetch(`/api/v1/orgs/${orgId}/domains/${domain}/records`, { method: 'POST', headers: jsonHeaders(ownerKey), body: JSON.stringify(body) });
  if (res.status !== 201) throw new Error(`record refused: ${res.status} ${await res.text()}`);
}

async function records(domain: string): Promise<{ name: string; type: string; content: string }[]> {
  return (await readJson<{ data: { name: string; type: string; content: string }[] }>(await app.fetch(`/api/v1/orgs/${orgId}/domains/${domain}/records?limit=100`, { headers: bearer(ownerKey) }))).data;
}

beforeAll(async () => {
  pdns = await startPowerDns();
  app = await startTestApp({ env: { DNS_PROVIDER_URL: pdns.apiUrl, DNS_PROVIDER_TOKEN: pdns.apiKey } });
  // A customer set up through the API as a person would, on the pro plan: the harness runs in
  // seconds the syncs a cluster runs a minute apart (some 250 reads, where a cluster makes a handful a
  // minute), past the free plan's 300 reads a minute. The limits stay on. The plan is set before the
  // first request on the organisation's paths (the limiter keeps plans for a minute).
  const session = await sessionToken(app, uniqueEmail('extdns'));
  ownerSession = session;
  orgId = (await createOrg(app, session, 'Cluster Co')).id;
  await app.deps.db.query('UPDATE organizations SET plan = $2 WHERE id = $1', [orgId, 'pro']);
  for (const zone of Object.keys(zones) as (keyof typeof zones)[]) zones[zone] = await insertActiveDomain(app, { org: { id: orgId }, livemode: true });
  ownerKey = (await createKey(app, session, { name: 'ops', scopes: ['domains:read', 'dns:read', 'dns:write'], mode: 'live' })).key;
  const webhookKey = await createKey(app, session, {
    name: 'external-dns',
    scopes: ['domains:read', 'dns:read', 'dns:write'],
    mode: 'live',
    allowed_domains: [zones.a, zones.b, zones.journey],
  });
  // A record made by hand beside the cluster's, and one in the domain the key may not touch.
  await createRecord(zones.a, { type: 'A', name: 'manual', content: '192.0.2.200' });
  await createRecord(zones.denied, { type: 'A', name: 'keep', content: '192.0.2.250' });

  proxy = await startRecordingProxy(app.url, { forwardedFor: simulatedClientAddress(), fault: () => faults.shift() });
  const [port, healthPort] = [await freePort(), await freePort()];
  webhook = runTs('src/main.ts', ['--role', 'external-dns-webhook'], {
    EXTERNAL_DNS_WEBHOOK_API_URL: proxy.url,
    EXTERNAL_DNS_WEBHOOK_API_KEY: webhookKey.key,
    EXTERNAL_DNS_WEBHOOK_ORG: orgId,
    EXTERNAL_DNS_WEBHOOK_PORT: String(port),
    EXTERNAL_DNS_WEBHOOK_HEALTH_HOST: '127.0.0.1',
    EXTERNAL_DNS_WEBHOOK_HEALTH_PORT: String(healthPort),
    LOG_LEVEL: 'info',
  });
  await webhook.waitForOutput(/zones offered to external-dns/);
  webhookUrl = `http://127.0.0.1:${port}`;
  healthUrl = `http://127.0.0.1:${healthPort}`;
});

afterAll(async () => {
  webhook?.child.kill('SIGTERM');
  await webhook?.exited;
  await proxy?.close();
  await app?.close();
  await pdns?.close();
});

/** What the provider logged when it refused external-dns, for a failing run's message. */
const refusals = () =>
  webhook
    .output()
    .split('\n')
    .filter((line) => line.includes('external-dns request refused'))
    .join('\n');

/** `go test` in the harness folder; resolves with its exit code and everything it printed. */
function goTest(env: Record<string, string>): Promise<{ code: number | null; output: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn('go', ['test', '-count=1', '-timeout=240s', '-v', './...'], { cwd: EXTERNAL_DNS_HARNESS_DIR, env: { ...process.env, ...EXTERNAL_DNS_GO_ENV, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.once('error', reject);
    child.once('exit', (code) => resolve({ code, output }));
  });
}

const send = (method: string, pathname: string, body?: unknown, headers: Record<string, string> = {}) =>
  fetch(`${webhookUrl}${pathname}`, {
    method,
    headers: { accept: WEBHOOK_MEDIA_TYPE, ...(body === undefined ? {} : { 'content-type': WEBHOOK_MEDIA_TYPE }), ...headers },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });

describe('the external-dns webhook provider', () => {
  it("syncs clusters' endpoints with external-dns's own registry, planner and webhook client (the Go harness)", { timeout: 600_000 }, async () => {
    const from = proxy.requests.length;
    const { code, output } = await goTest({
      EXTDNS_WEBHOOK_URL: webhookUrl,
      EXTDNS_DNS_SERVER: `127.0.0.1:${pdns.dnsPort}`,
      EXTDNS_PDNS_API_URL: pdns.apiUrl,
      EXTDNS_PDNS_API_KEY: pdns.apiKey,
      EXTDNS_ZONE_A: zones.a,
      EXTDNS_ZONE_B: zones.b,
      EXTDNS_ZONE_JOURNEY: zones.journey,
      EXTDNS_ZONE_DENIED: zones.denied,
      EXTDNS_MANUAL_RECORD: `manual.${zones.a} 3600 A 192.0.2.200`,
    });
    expect(code, `${output}\nThe webhook provider's refusals:\n${refusals()}`).toBe(0);
    // Each test ran and passed (a test that stopped being compiled in would not be missed otherwise).
    for (const name of HARNESS_TESTS) expect(output).toContain(`--- PASS: ${name} `);
    const calls = proxy.requests.slice(from);
    // Every change went as a batch. The api refused only the domain the key may not touch, and any
    // burst past the per-second limits was waited out: nothing reached external-dns as a 5xx.
    expect(calls.filter((r) => r.method !== 'GET').every((r) => r.method === 'POST' && r.path.endsWith('/records/batch'))).toBe(true);
    const refused = calls.filter((r) => r.status >= 400 && r.status !== 429);
    expect(refused.map((r) => `${r.method} ${r.path.split('?')[0]} ${r.status}`)).toEqual(Array.from(refused, () => `GET /api/v1/orgs/${orgId}/domains/${zones.denied}/records 403`));
    expect(refused.length).toBeGreaterThan(0);
    expect(await records(zones.denied)).toEqual([expect.objectContaining({ name: 'keep', content: '192.0.2.250' })]);
  });

  it('speaks protocol version 1 only, byte for byte, and serves /healthz on its own port', async () => {
    const negotiated = await send('GET', '/');
    expect(negotiated.status).toBe(200);
    expect(negotiated.headers.get('content-type')).toBe(WEBHOOK_MEDIA_TYPE);
    expect(await negotiated.json()).toEqual({ include: [zones.a, zones.b, zones.journey].sort(), exclude: [] });
    expect((await send('GET', '/records', undefined, { accept: 'application/external.dns.webhook+json;version=2' })).status).toBe(406);
    expect((await send('POST', '/records', { create: [] }, { 'content-type': 'application/json' })).status).toBe(415);
    expect((await send('POST', '/records', { create: [] }, { 'content-type': 'application/external.dns.webhook+json; version=1' })).status).toBe(415);

    const health = await fetch(`${healthUrl}/healthz`);
    expect(health.status).toBe(200);
    expect(await health.json()).toEqual({ status: 'ok' });
    expect((await send('GET', '/healthz')).status).toBe(404);
  });

  it('takes the capitalised change keys of external-dns before v0.17, but not both spellings at once', async () => {
    const legacy = { dnsName: `legacy.${zones.b}`, recordType: 'A', targets: ['192.0.2.80'] };
    expect((await send('POST', '/records', { Create: [legacy] })).status).toBe(204);
    expect(await records(zones.b)).toContainEqual(expect.objectContaining({ name: 'legacy', type: 'A', content: '192.0.2.80' }));
    expect(await pdns.resolver().resolve4(`legacy.${zones.b}`)).toEqual(['192.0.2.80']);

    const both = await send('POST', '/records', { Create: [legacy], create: [legacy] });
    expect(both.status).toBe(422);
    expect((await send('POST', '/records', { Delete: [legacy] })).status).toBe(204);
    expect(await records(zones.b)).not.toContainEqual(expect.objectContaining({ name: 'legacy' }));
  });

  it('answers 5xx for what a later run can fix (429, 503 from the api) and 4xx for what a person must', async () => {
    // A Retry-After longer than a second is not waited for: external-dns is told at once.
    faults.push({ status: 429, retryAfter: '7' });
    const limited = await send('GET', '/records');
    expect(limited.status).toBe(503);
    expect(limited.headers.get('retry-after')).toBe('7');
    expect(await readJson<MessageErrorBody>(limited)).toMatchObject({ code: 'RATE_LIMITED' });

    // The api's 503 is tried three times (the SDK's retries), then passed on.
    faults.push(503, 503, 503);
    const down = await send('POST', '/records', { create: [{ dnsName: `down.${zones.b}`, recordType: 'A', targets: ['192.0.2.81'] }] });
    expect(down.status).toBe(503);
    expect(faults).toEqual([]);

    const invalid = await send('POST', '/records', { create: [{ dnsName: `bad.${zones.b}`, recordType: 'A', targets: ['192.0.2.1', 'lb.example.net'] }] });
    expect(invalid.status).toBe(422);
    expect((await readJson<FieldErrorBody>(invalid)).detail).toEqual([{ loc: ['body', 'create', '0', 'targets', '1'], msg: expect.stringContaining('IPv4'), type: 'ipv4_invalid' }]);

    // A CNAME beside the hand-made A record: the api's own 409, passed on.
    const conflict = await send('POST', '/records', { create: [{ dnsName: `manual.${zones.a}`, recordType: 'CNAME', targets: ['lb.example.net'] }] });
    expect(conflict.status).toBe(409);
    expect(await readJson<MessageErrorBody>(conflict)).toMatchObject({ code: 'RECORD_CONFLICT' });
    expect(await records(zones.b)).not.toContainEqual(expect.objectContaining({ name: expect.stringMatching(/^(down|bad)$/) }));
  });
});

describe('the external-dns webhook provider with a key restricted to some records', () => {
  it('offers the zones it is told, changes the records the patterns match and refuses others as 4xx', { timeout: 60_000 }, async () => {
    const key = await createKey(app, ownerSession, {
      name: 'external-dns apps',
      scopes: ['dns:read', 'dns:write'],
      mode: 'live',
      allowed_records: [`*.apps.${zones.b}:A`, `*.apps.${zones.b}:TXT`],
    });
    const [port, healthPort] = [await freePort(), await freePort()];
    const restricted = runTs('src/main.ts', ['--role', 'external-dns-webhook'], {
      EXTERNAL_DNS_WEBHOOK_API_URL: proxy.url,
      EXTERNAL_DNS_WEBHOOK_API_KEY: key.key,
      EXTERNAL_DNS_WEBHOOK_ORG: orgId,
      EXTERNAL_DNS_WEBHOOK_ZONES: `${zones.b}, ${zones.a}.`,
      EXTERNAL_DNS_WEBHOOK_PORT: String(port),
      EXTERNAL_DNS_WEBHOOK_HEALTH_HOST: '127.0.0.1',
      EXTERNAL_DNS_WEBHOOK_HEALTH_PORT: String(healthPort),
      LOG_LEVEL: 'info',
    });
    try {
      await restricted.waitForOutput(/zones offered to external-dns/);
      const call = (method: string, pathname: string, body?: unknown) =>
        fetch(`http://127.0.0.1:${port}${pathname}`, {
          method,
          headers: { accept: WEBHOOK_MEDIA_TYPE, ...(body === undefined ? {} : { 'content-type': WEBHOOK_MEDIA_TYPE }) },
          ...(body === undefined ? {} : { body: JSON.stringify(body) }),
        });
      // Only the zone its patterns name is offered, though the configuration names two.
      expect(await (await call('GET', '/')).json()).toEqual({ include: [zones.b], exclude: [] });
      const app1 = { dnsName: `web.apps.${zones.b}`, recordType: 'A', targets: ['192.0.2.90'] };
      expect((await call('POST', '/records', { create: [app1] })).status).toBe(204);
      expect(await pdns.resolver().resolve4(`web.apps.${zones.b}`)).toEqual(['192.0.2.90']);
      const outside = await call('POST', '/records', { create: [{ dnsName: `web.${zones.b}`, recordType: 'A', targets: ['192.0.2.91'] }] });
      expect(outside.status).toBe(403);
      expect(await readJson<MessageErrorBody>(outside)).toMatchObject({ code: 'RECORD_NOT_ALLOWED' });
      expect(await records(zones.b)).not.toContainEqual(expect.objectContaining({ name: 'web' }));
      expect((await call('POST', '/records', { delete: [app1] })).status).toBe(204);
    } finally {
      restricted.child.kill('SIGTERM');
      await restricted.exited;
    }
  });
});
