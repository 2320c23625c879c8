import { execFile } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Worker } from '@temporalio/worker';
import { sharedWorkflowBundle, startTestApp, type TestApp } from '../../../test/support/testApp.js';
import { startPowerDns, type PowerDns } from '../../../test/support/powerdns.js';
import { dnsCustomer, insertActiveDomain, registerTestDomain, type Customer } from '../../../test/support/domains.js';
import { bearer, jsonHeaders } from '../../../test/support/actors.js';
import { readJson } from '../../../test/support/http.js';
import { namedCheckzone } from '../../../test/support/namedCheckzone.js';
import { recordHistory } from '../../../test/support/histories.js';
import { insertMember } from '../../../test/support/factories.js';
import { findDomainOfOrg, findLatestDomainOfOrg } from '../domains/domains.repository.js';
import { changeDomainStatus } from '../domains/domainStatus.js';
import { lifecycleWorkflowId } from '../lifecycle/watch.js';
import { derivedSigningKey } from './provider/synthetic.js';
import { modeOf } from '../../db/modeScope.js';

/**
 * Test mode with a DNS host of its own (DNS_TEST_PROVIDER_URL, a real PowerDNS here): test-mode
 * records, ALIAS and DNSSEC signatures answered over DNS as a client (or `dig`) sees them; one zone
 * per name on that host, so of two organisations holding the same test name only the first is
 * served, until its domain ends.
 */
const run = promisify(execFile);

interface OperationBody {
  id: string;
  status: string;
}
interface DnssecBody {
  status: string;
  dnskey: string | null;
  served: boolean;
  ds_records: { key_tag: number }[];
}

let pdns: PowerDns;
let app: TestApp;
let scratch: string;
beforeAll(async () => {
  scratch = await mkdtemp(path.join(os.tmpdir(), 'test-dns-'));
  pdns = await startPowerDns();
  app = await startTestApp({ worker: true, env: { DNS_TEST_PROVIDER_URL: pdns.apiUrl, DNS_TEST_PROVIDER_TOKEN: pdns.apiKey } });
});
afterAll(async () => {
  await app?.close();
  await pdns?.close();
  await rm(scratch, { recursive: true, force: true });
});

const poll = { timeout: 20_000, interval: 100 };
const NAMESERVERS = ['ns1.example.net', 'ns2.example.net'];
const domainPath = (c: Customer, domain: string) => `/api/v1/orgs/${c.org.id}/domains/${domain}`;
const send = (c: Customer, method: string, url: string, body?: unknown, headers: Record<string, string> = {}) =>
  app.fetch(url, { method, headers: { ...jsonHeaders(c.key), ...headers }, ...(body === undefined ? {} : { body: typeof body === 'string' ? body : JSON.stringify(body) }) });

async function addRecord(c: Customer, domain: string, record: { type: string; name: string; content: string; ttl?: number }): Promise<void> {
  const res = await send(c, 'POST', `${domainPath(c, domain)}/records`, { ttl: 300, ...record });
  if (res.status !== 201) throw new Error(`record refused: ${res.status} ${await res.text()}`);
}

/** What `dig +short` answers for the name and type at the test host, sorted (an empty list: nothing). */
async function dig(name: string, type: string): Promise<string[]> {
  const { stdout } = await run('dig', ['+short', '+norec', '+time=2', '+tries=1', '@127.0.0.1', '-p', String(pdns.dnsPort), name, type]);
  return stdout
    .trim()
    .split('\n')
    .filter((line) => line !== '')
    .sort();
}

const dnssec = async (c: Customer, domain: string) => readJson<DnssecBody>(await app.fetch(`${domainPath(c, domain)}/dnssec`, { headers: bearer(c.key) }));

/** POST or DELETE …/dnssec, then waits for the operation to succeed. */
async function changeDnssec(c: Customer, domain: string, method: 'POST' | 'DELETE'): Promise<void> {
  const res = await send(c, method, `${domainPath(c, domain)}/dnssec`, undefined, { 'idempotency-key': `${method}-${domain}-${Date.now()}` });
  expect(res.status).toBe(202);
  const { id } = await readJson<OperationBody>(res);
  const status = async () => (await readJson<OperationBody>(await app.fetch(`/api/v1/orgs/${c.org.id}/operations/${id}`, { headers: bearer(c.key) }))).status;
  await expect.poll(status, poll).toMatch(/^(succeeded|failed)$/);
  expect(await status()).toBe('succeeded');
}

/** delv with the zone's key as its only trust anchor: whether the answer validates. */
async function validates(zone: string, dnskey: string, name: string, type: string): Promise<string> {
  const anchors = path.join(scratch, `${zone}.anchor`);
  const [flags, protocol, algorithm, ...key] = dnskey.split(' ');
  await writeFile(anchors, `trust-anchors { ${zone}. static-key ${flags} ${protocol} ${algorithm} "${key.join('')}"; };\n`);
  const out = await run('delv', ['@127.0.0.1', '-p', String(pdns.dnsPort), '-a', anchors, `+root=${zone}`, name, type]).then(
    (r) => r.stdout,
    (err: { stdout?: string; stderr?: string }) => `${err.stdout ?? ''}${err.stderr ?? ''}`,
  );
  return out;
}

describe('test-mode DNS served by the test host', () => {
  it('answers test records (HTTPS, apex ALIAS) over DNS, signs them for real, and a zone file copies them to a second domain that answers the same', async () => {
    const c = await dnsCustomer(app, 'test');
    // Registered through the workflow, whose zone creation makes the zone on the test host.
    const domain = await registerTestDomain(app, c, { nameservers: NAMESERVERS });
    await expect.poll(() => dig(domain, 'NS'), poll).toEqual(NAMESERVERS.map((ns) => `${ns}.`));
    await addRecord(c, domain, { type: 'A', name: 'www', content: '192.0.2.10' });
    await addRecord(c, domain, { type: 'HTTPS', name: '@', content: '1 . alpn=h2,h3' });
    await addRecord(c, domain, { type: 'ALIAS', name: '@', content: `www.${domain}.` });
    expect(await dig(domain, 'HTTPS')).toEqual(['1 . alpn="h2,h3"']);
    // The ALIAS is answered as its target's address.
    expect(await dig(domain, 'A')).toEqual(['192.0.2.10']);

    // DNSSEC: signed on the test host, a validating resolver accepts it; no DS anywhere.
    expect(await dnssec(c, domain)).toMatchObject({ status: 'off', served: true });
    await changeDnssec(c, domain, 'POST');
    const signed = await dnssec(c, domain);
    expect(signed).toMatchObject({ status: 'active', served: true });
    expect(signed.dnskey).not.toBe(derivedSigningKey(domain).dnskey);
    expect((await dig(domain, 'DNSKEY')).map((k) => k.replace(/ /g, ''))).toEqual([signed.dnskey!.replace(/ /g, '')]);
    const checked = await validates(domain, signed.dnskey!, `www.${domain}`, 'A');
    expect(checked).toContain('; fully validated');
    expect(checked).toContain('192.0.2.10');
    expect(await validates(domain, `257 3 13 ${derivedSigningKey('another key').dnskey.split(' ')[3]}`, `www.${domain}`, 'A')).not.toContain('; fully validated');

    // Export (the host's SOA and NS), checked by BIND, imported into a second domain: dry run, then for real.
    const exported = await app.fetch(`${domainPath(c, domain)}/zone`, { headers: bearer(c.key) });
    expect(exported.headers.get('zone-served')).toBe('true');
    const file = await exported.text();
    const [soa] = await pdns.resolver().resolveSoa(domain).then((s) => [s]);
    expect(file).toContain(`IN SOA ${soa!.nsname}. ${soa!.hostmaster}. ${soa!.serial} `);
    expect(file).not.toContain('not served');
    const check = await namedCheckzone(domain, file);
    expect(check.output).toContain('OK');
    expect(check.code).toBe(0);

    const copy = await registerTestDomain(app, c, { nameservers: NAMESERVERS });
    await expect.poll(() => dig(copy, 'NS'), poll).not.toEqual([]);
    const importUrl = `${domainPath(c, copy)}/zone?mode=replace`;
    const dry = await send(c, 'POST', importUrl, file, { 'content-type': 'text/dns', 'dry-run': 'true' });
    expect(dry.status).toBe(200);
    expect((await readJson<{ create: { type: string }[] }>(dry)).create.map((r) => r.type).sort()).toEqual(['A', 'ALIAS', 'HTTPS']);
    expect(await dig(`www.${copy}`, 'A')).toEqual([]);
    const real = await send(c, 'POST', importUrl, file, { 'content-type': 'text/dns' });
    expect(real.status).toBe(200);
    for (const [name, type] of [['', 'A'], ['', 'HTTPS'], ['www.', 'A'], ['', 'NS']] as const) {
      const [original, copied] = [await dig(`${name}${domain}`, type), await dig(`${name}${copy}`, type)];
      expect(copied.length, `${name}@ ${type}`).toBeGreaterThan(0);
      expect(copied).toEqual(original);
    }

    // Off again: unsigned on the host.
    await changeDnssec(c, domain, 'DELETE');
    expect(await dnssec(c, domain)).toMatchObject({ status: 'off', dnskey: null, served: true });
    expect(await dig(domain, 'DNSKEY')).toEqual([]);
  });
});

describe('two organisations holding the same test name', () => {
  it('serves only the first one’s zone, keeps the other’s edits off it, and hands the zone over when the first one’s domain is deleted', async () => {
    const [first, second] = [await dnsCustomer(app, 'test'), await dnsCustomer(app, 'test')];
    const name = await registerTestDomain(app, first);
    await expect.poll(() => dnssec(first, name), poll).toMatchObject({ served: true });
    await registerTestDomain(app, second, { name });
    await addRecord(first, name, { type: 'A', name: 'www', content: '192.0.2.1' });
    await addRecord(second, name, { type: 'A', name: 'www', content: '192.0.2.2' });
    await addRecord(second, name, { type: 'TXT', name: 'second', content: 'kept here' });
    expect(await dig(`www.${name}`, 'A')).toEqual(['192.0.2.1']);
    expect(await dig(`second.${name}`, 'TXT')).toEqual([]);

    // The second's API answers as usual, and says its zone is not served.
    expect((await readJson<{ data: unknown[] }>(await app.fetch(`${domainPath(second, name)}/records`, { headers: bearer(second.key) }))).data).toHaveLength(2);
    await changeDnssec(second, name, 'POST');
    expect(await dnssec(second, name)).toMatchObject({ status: 'active', served: false, dnskey: derivedSigningKey(name).dnskey });
    expect(await dig(name, 'DNSKEY')).toEqual([]);
    const exported = await app.fetch(`${domainPath(second, name)}/zone`, { headers: bearer(second.key) });
    expect(exported.headers.get('zone-served')).toBe('false');
    expect(await exported.text()).toContain('; not served:');
    expect(await dnssec(first, name)).toMatchObject({ served: true });

    // The first's domain runs out its life (auto-renewal off): expired, then deleted by its lifecycle.
    expect((await send(first, 'PATCH', domainPath(first, name), { auto_renew: false })).status).toBe(200);
    const advance = async (days: number) => expect((await send(first, 'POST', `${domainPath(first, name)}/test-clock`, { advance_days: days })).status).toBe(200);
    const status = async () => (await readJson<{ status: string }>(await app.fetch(domainPath(first, name), { headers: bearer(first.key) }))).status;
    await advance(366);
    await expect.poll(status, poll).toBe('expired');
    await advance(30);
    await expect.poll(status, poll).toBe('deleted');

    // Its zone goes, and the second organisation's domain gets the name's zone with its records and a real signing key.
    await expect.poll(() => dnssec(second, name), poll).toMatchObject({ status: 'active', served: true });
    expect(await dig(`second.${name}`, 'TXT')).toEqual(['"kept here"']);
    expect(await dig(`www.${name}`, 'A')).toEqual(['192.0.2.2']);
    const adopted = await dnssec(second, name);
    expect(adopted.dnskey).not.toBe(derivedSigningKey(name).dnskey);
    expect((await dig(name, 'DNSKEY')).map((k) => k.replace(/ /g, ''))).toEqual([adopted.dnskey!.replace(/ /g, '')]);
    expect(await validates(name, adopted.dnskey!, `www.${name}`, 'A')).toContain('; fully validated');

    // The lifecycle's new path (a test zone deleted) replays, and is kept for test/workflows/replay.test.ts.
    const gone = await findLatestDomainOfOrg(app.deps.db, modeOf(false), first.org.id, name);
    const workflowId = lifecycleWorkflowId(gone!.id);
    expect(await app.deps.temporal.client.workflow.getHandle(workflowId).result()).toEqual({ outcome: 'deleted' });
    const history = await recordHistory(app, workflowId, 'domain-lifecycle-deleted-test-zone');
    expect(history.events?.filter((e) => e.activityTaskScheduledEventAttributes?.activityType?.name === 'deleteDnsZone')).toHaveLength(1);
    await expect(Worker.runReplayHistory({ workflowBundle: sharedWorkflowBundle() }, history, workflowId)).resolves.toBeUndefined();
  });

  it('lets the other take the zone on its next edit when the first ended without its zone deleted (a lifecycle from before test zones were)', async () => {
    const [first, second] = [await dnsCustomer(app, 'test'), await dnsCustomer(app, 'test')];
    const name = await insertActiveDomain(app, first);
    await insertActiveDomain(app, second, { name });
    await addRecord(first, name, { type: 'A', name: 'www', content: '192.0.2.1' });
    await addRecord(second, name, { type: 'A', name: 'api', content: '192.0.2.2' });
    expect(await dig(`api.${name}`, 'A')).toEqual([]);

    const mode = modeOf(false);
    const ended = (await findDomainOfOrg(app.deps.db, mode, first.org.id, name))!.id;
    await changeDomainStatus({ db: app.deps.db, mode, domainId: ended, to: 'expired' });
    await changeDomainStatus({ db: app.deps.db, mode, domainId: ended, to: 'deleted' });
    // Nothing of the ended domain survives; the second's earlier record arrives with its edit.
    await addRecord(second, name, { type: 'A', name: 'mail', content: '192.0.2.3' });
    expect(await dig(`www.${name}`, 'A')).toEqual([]);
    expect(await dig(`api.${name}`, 'A')).toEqual(['192.0.2.2']);
    expect(await dig(`mail.${name}`, 'A')).toEqual(['192.0.2.3']);
  });

  it('keeps a moved domain’s zone served, edited by the organisation it moved to only', async () => {
    const [from, to] = [await dnsCustomer(app, 'test'), await dnsCustomer(app, 'test')];
    // Whoever proposes a move must belong to the target too (docs/api-guide.md, Moving a domain).
    const { rows } = await app.deps.db.query<{ user_id: string }>('SELECT user_id FROM memberships WHERE org_id = $1', [from.org.id]);
    await insertMember(app.deps, { orgId: to.org.id, user: { id: rows[0]!.user_id, email: from.email }, role: 'member' });
    const name = await registerTestDomain(app, from);
    await expect.poll(() => dnssec(from, name), poll).toMatchObject({ served: true });
    await addRecord(from, name, { type: 'A', name: 'www', content: '192.0.2.1' });
    const proposed = await send(from, 'POST', `${domainPath(from, name)}/moves`, { to_org_id: to.org.id });
    expect(proposed.status).toBe(201);
    const move = await readJson<{ id: string }>(proposed);
    expect((await send(to, 'POST', `/api/v1/orgs/${to.org.id}/domain-moves/${move.id}/accept`)).status).toBe(200);

    await addRecord(to, name, { type: 'A', name: 'www', content: '192.0.2.9' });
    expect(await dig(`www.${name}`, 'A')).toEqual(['192.0.2.1', '192.0.2.9']);
    expect((await send(from, 'POST', `${domainPath(from, name)}/records`, { type: 'A', name: 'x', content: '192.0.2.5' })).status).toBe(404);
    expect(await dnssec(to, name)).toMatchObject({ served: true });
  });
});
