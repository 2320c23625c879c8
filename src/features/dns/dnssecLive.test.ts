import { execFile } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../../../test/support/testApp.js';
import { startPowerDns, type PowerDns } from '../../../test/support/powerdns.js';
import { FakeDnsimple, registrarEnv } from '../../../test/support/fakeDnsimple.js';
import { dnsCustomer, insertActiveDomain, type Customer } from '../../../test/support/domains.js';
import { bearer, jsonHeaders } from '../../../test/support/actors.js';
import { readJson, type MessageErrorBody } from '../../../test/support/http.js';
import { recordHistory } from '../../../test/support/histories.js';
import { listAuditEventsForTarget } from '../../audit/auditEvents.js';
import { findLatestDomainOfOrg } from '../domains/domains.repository.js';
import { derivedP256Dnskey } from './dnssecKeys.js';
import { writeChange } from './dnssec.js';
import { withTransaction } from '../../db/pool.js';
import { parseDomainName } from '../../domainName.js';
import type { Principal } from '../../auth/principal.js';
import type { ReconcileOperationsSummary } from '../strandedOperations/strandedOperations.contract.js';
import { modeOf } from '../../db/modeScope.js';

/**
 * DNSSEC end to end: a real PowerDNS signs the live zone, answers with RRSIGs that a validating
 * resolver (delv, the zone's own key as trust anchor) accepts, and the DS reaches the DNSimple
 * double, where dnssec-dsfromkey must agree with it. Turning it off withdraws the DS first and
 * unsigns only after the wait, which is seconds here (DNSSEC_DS_REMOVAL_WAIT).
 */
const run = promisify(execFile);

interface DnssecBody {
  domain: string;
  status: string;
  ds_records: { key_tag: number; algorithm: number; digest_type: number; digest: string }[];
  dnskey: string | null;
  operation_id: string | null;
  livemode: boolean;
}
interface OperationBody {
  id: string;
  type: string;
  status: string;
  result: Record<string, unknown> | null;
  error: { code: string; detail: string } | null;
}

/** Long enough that the DS being gone while the zone is still signed can be seen between two polls. */
const DS_REMOVAL_WAIT_MS = 6_000;

let pdns: PowerDns;
let dnsimple: FakeDnsimple;
let app: TestApp;
let scratch: string;
beforeAll(async () => {
  scratch = await mkdtemp(path.join(os.tmpdir(), 'dnssec-test-'));
  dnsimple = await FakeDnsimple.start();
  pdns = await startPowerDns();
  app = await startTestApp({
    worker: true,
    env: { ...registrarEnv(dnsimple), DNS_PROVIDER_URL: pdns.apiUrl, DNS_PROVIDER_TOKEN: pdns.apiKey, DNSSEC_DS_REMOVAL_WAIT: `${DS_REMOVAL_WAIT_MS}ms` },
  });
});
afterAll(async () => {
  await app?.close();
  await pdns?.close();
  await dnsimple?.close();
  await rm(scratch, { recursive: true, force: true });
});

const dnssecPath = (c: Customer, domain: string) => `/api/v1/orgs/${c.org.id}/domains/${domain}/dnssec`;
const send = (c: Customer, method: string, domain: string, idempotencyKey?: string) =>
  app.fetch(dnssecPath(c, domain), { method, headers: { ...jsonHeaders(c.key), ...(idempotencyKey ? { 'idempotency-key': idempotencyKey } : {}) } });
const state = async (c: Customer, domain: string) => readJson<DnssecBody>(await app.fetch(dnssecPath(c, domain), { headers: bearer(c.key) }));
const operation = async (c: Customer, id: string) => readJson<OperationBody>(await app.fetch(`/api/v1/orgs/${c.org.id}/operations/${id}`, { headers: bearer(c.key) }));

async function finished(c: Customer, id: string): Promise<OperationBody> {
  await expect.poll(async () => (await operation(c, id)).status, { timeout: 20_000, interval: 100 }).toMatch(/^(succeeded|failed)$/);
  return operation(c, id);
}

async function workflowIdOf(operationId: string): Promise<string> {
  const { rows } = await app.deps.db.query<{ workflow_id: string }>('SELECT workflow_id FROM operations WHERE id = $1', [operationId]);
  return rows[0]!.workflow_id;
}

async function dig(...args: string[]): Promise<string> {
  const { stdout } = await run('dig', ['@127.0.0.1', '-p', String(pdns.dnsPort), '+norec', '+dnssec', '+time=2', '+tries=1', ...args]);
  return stdout;
}

/** Answer-section records of that type, as `dig +short` would not show RRSIGs. */
const answers = (out: string, type: string) =>
  out
    .split('\n')
    .filter((line) => !line.startsWith(';') && line.split(/\s+/)[3] === type)
    .map((line) => line.split(/\s+/).slice(4).join(' '));

/** The DS of a DNSKEY as BIND's dnssec-dsfromkey computes it (SHA-256). */
async function dsFromKey(zone: string, dnskey: string): Promise<string> {
  const file = path.join(scratch, `${zone}.dnskey`);
  await writeFile(file, `${zone}. 3600 IN DNSKEY ${dnskey}\n`);
  const { stdout } = await run('dnssec-dsfromkey', ['-2', '-f', file, zone]);
  // "<zone>. IN DS <tag> 13 2 <DIGEST>"
  const [tag, algorithm, digestType, digest] = stdout.trim().split(/\s+/).slice(3);
  return `${tag} ${algorithm} ${digestType} ${digest!.toLowerCase()}`;
}

async function liveSignedDomain(): Promise<{ c: Customer; domain: string }> {
  const c = await dnsCustomer(app, 'live');
  const domain = await insertActiveDomain(app, c);
  dnsimple.holdDomain(domain);
  return { c, domain };
}

describe('DNSSEC in live mode: PowerDNS signs, the DS goes to the registrar', () => {
  it('signs the zone so that a validating resolver accepts it, publishes the matching DS, then withdraws it before unsigning', async () => {
    const { c, domain } = await liveSignedDomain();
    // A record to look up: the zone's data, not only its apex, is signed.
    expect((await app.fetch(`/api/v1/orgs/${c.org.id}/domains/${domain}/records`, { method: 'POST', headers: jsonHeaders(c.key), body: JSON.stringify({ type: 'A', name: 'www', content: '192.0.2.7' }) })).status).toBe(201);
    expect(await state(c, domain)).toMatchObject({ status: 'off', ds_records: [], dnskey: null, livemode: true });

    const accepted = await send(c, 'POST', domain, `sign-${domain}`);
    expect(accepted.status).toBe(202);
    const started = await readJson<OperationBody>(accepted);
    expect(started).toMatchObject({ type: 'dnssec.enable' });
    expect(accepted.headers.get('location')).toBe(`/api/v1/orgs/${c.org.id}/operations/${started.id}`);
    // The same Idempotency-Key answers the same operation.
    expect((await readJson<OperationBody>(await send(c, 'POST', domain, `sign-${domain}`))).id).toBe(started.id);
    expect(await finished(c, started.id)).toMatchObject({ status: 'succeeded', error: null });

    const active = await state(c, domain);
    expect(active).toMatchObject({ status: 'active', operation_id: started.id });
    expect(active.ds_records).toHaveLength(1);
    const [ds] = active.ds_records;
    expect(ds).toMatchObject({ algorithm: 13, digest_type: 2 });
    expect(ds!.digest).toMatch(/^[0-9a-f]{64}$/);

    // Served signed: the DNSKEY is the one the API shows, and SOA, DNSKEY and A carry RRSIGs.
    const dnskeyAnswer = await dig(domain, 'DNSKEY');
    expect(answers(dnskeyAnswer, 'DNSKEY').map((k) => k.replace(/ /g, ''))).toEqual([active.dnskey!.replace(/ /g, '')]);
    expect(answers(dnskeyAnswer, 'RRSIG')[0]).toMatch(/^DNSKEY 13 /);
    expect(answers(await dig(domain, 'SOA'), 'RRSIG')[0]).toMatch(/^SOA 13 /);
    expect(answers(await dig(`www.${domain}`, 'A'), 'RRSIG')[0]).toMatch(/^A 13 /);

    // A validating resolver with the zone's key as its only trust anchor accepts the answers.
    const anchors = path.join(scratch, `${domain}.anchor`);
    const [flags, protocol, algorithm, ...key] = active.dnskey!.split(' ');
    await writeFile(anchors, `trust-anchors { ${domain}. static-key ${flags} ${protocol} ${algorithm} "${key.join('')}"; };\n`);
    const delv = await run('delv', ['@127.0.0.1', '-p', String(pdns.dnsPort), '-a', anchors, `+root=${domain}`, `www.${domain}`, 'A']);
    expect(delv.stdout).toContain('; fully validated');
    expect(delv.stdout).toContain('192.0.2.7');
    // …and the same check refuses them under another key, so the acceptance above means something.
    const wrong = path.join(scratch, `${domain}.wrong-anchor`);
    await writeFile(wrong, `trust-anchors { ${domain}. static-key 257 3 13 "${derivedP256Dnskey('another key').publicKey}"; };\n`);
    const refused = await run('delv', ['@127.0.0.1', '-p', String(pdns.dnsPort), '-a', wrong, `+root=${domain}`, `www.${domain}`, 'A']).then(
      (out) => out.stdout,
      (err: { stdout?: string; stderr?: string }) => `${err.stdout ?? ''}${err.stderr ?? ''}`,
    );
    expect(refused).not.toContain('; fully validated');

    // The registrar holds exactly that DS, and BIND computes the same from the DNSKEY.
    const held = dnsimple.dsRecords(domain);
    expect(held).toEqual([expect.objectContaining({ algorithm: '13', digest_type: '2', keytag: String(ds!.key_tag), digest: ds!.digest, public_key: null })]);
    expect(await dsFromKey(domain, active.dnskey!)).toBe(`${ds!.key_tag} 13 2 ${ds!.digest}`);
    expect(dnsimple.requestsTo('POST', `/domains/${domain}/ds_records`)).toHaveLength(1);

    // Signing twice is a state conflict; so is the event and audit trail: one each.
    const again = await send(c, 'POST', domain);
    expect(again.status).toBe(409);
    expect(await readJson<MessageErrorBody>(again)).toMatchObject({ code: 'DNSSEC_STATE_CONFLICT' });
    const { rows: enabledEvents } = await app.deps.db.query<{ data: { object: DnssecBody } }>(
      `SELECT data FROM events WHERE org_id = $1 AND type = 'dnssec.enabled'`,
      [c.org.id],
    );
    expect(enabledEvents.map((e) => e.data.object)).toEqual([expect.objectContaining({ domain, status: 'active', ds_records: active.ds_records })]);
    await recordHistory(app, await workflowIdOf(started.id), 'dnssec-enable-live');

    // Off: the DS goes first, while the zone stays signed; unsigned only after the wait.
    const removing = await send(c, 'DELETE', domain, `unsign-${domain}`);
    expect(removing.status).toBe(202);
    const stopping = await readJson<OperationBody>(removing);
    expect(stopping.type).toBe('dnssec.disable');
    expect((await send(c, 'DELETE', domain)).status).toBe(409);
    await expect.poll(() => dnsimple.dsRecords(domain).length, { timeout: 10_000, interval: 50 }).toBe(0);
    expect((await state(c, domain)).status).toBe('removing');
    expect(answers(await dig(domain, 'DNSKEY'), 'DNSKEY')).toHaveLength(1);
    expect(answers(await dig(domain, 'SOA'), 'RRSIG')).toHaveLength(1);

    expect(await finished(c, stopping.id)).toMatchObject({ status: 'succeeded' });
    expect(await state(c, domain)).toMatchObject({ status: 'off', ds_records: [], dnskey: null });
    expect(answers(await dig(domain, 'DNSKEY'), 'DNSKEY')).toEqual([]);
    expect(answers(await dig(domain, 'SOA'), 'RRSIG')).toEqual([]);
    const off = await send(c, 'DELETE', domain);
    expect(off.status).toBe(409);
    expect(await readJson<MessageErrorBody>(off)).toMatchObject({ code: 'DNSSEC_STATE_CONFLICT' });

    const domainRow = await findLatestDomainOfOrg(app.deps.db, modeOf(true), c.org.id, domain);
    const audit = await listAuditEventsForTarget(app.deps.db, 'domain', domainRow!.id);
    expect(audit.map((a) => a.action)).toEqual(['dnssec.enabled', 'dnssec.disabled']);
    const { rows: disabledEvents } = await app.deps.db.query(`SELECT id FROM events WHERE org_id = $1 AND type = 'dnssec.disabled'`, [c.org.id]);
    expect(disabledEvents).toHaveLength(1);
    await recordHistory(app, await workflowIdOf(stopping.id), 'dnssec-disable-live');
  });

  it('ends failed and unsigned when the registrar refuses the DS', async () => {
    const { c, domain } = await liveSignedDomain();
    dnsimple.fail({ method: 'POST', path: `/v2/${dnsimple.accountId}/domains/${domain}/ds_records` }, { status: 400, body: { message: 'Validation failed', errors: { digest: ['is invalid'] } } });
    const started = await readJson<OperationBody>(await send(c, 'POST', domain, `refused-${domain}`));
    const ended = await finished(c, started.id);
    expect(ended).toMatchObject({ status: 'failed', error: { code: 'REGISTRAR_REJECTED' } });
    expect(await state(c, domain)).toMatchObject({ status: 'off', ds_records: [] });
    expect(dnsimple.dsRecords(domain)).toEqual([]);
    expect(answers(await dig(domain, 'DNSKEY'), 'DNSKEY')).toEqual([]);
    await recordHistory(app, await workflowIdOf(started.id), 'dnssec-enable-live-ds-refused');
  });
});

describe('DNSSEC in test mode', () => {
  it('answers a real key and its true DS, and never calls the registrar', async () => {
    const c = await dnsCustomer(app, 'test');
    const domain = await insertActiveDomain(app, c);
    const started = await readJson<OperationBody>(await send(c, 'POST', domain, `test-sign-${domain}`));
    expect(await finished(c, started.id)).toMatchObject({ status: 'succeeded' });
    const active = await state(c, domain);
    expect(active).toMatchObject({ status: 'active', livemode: false });
    const [ds] = active.ds_records;
    expect(await dsFromKey(domain, active.dnskey!)).toBe(`${ds!.key_tag} ${ds!.algorithm} ${ds!.digest_type} ${ds!.digest}`);
    expect(dnsimple.requests.filter((r) => r.path.includes(domain))).toEqual([]);
    await recordHistory(app, await workflowIdOf(started.id), 'dnssec-enable-test');

    const stopping = await readJson<OperationBody>(await send(c, 'DELETE', domain, `test-unsign-${domain}`));
    expect(await finished(c, stopping.id)).toMatchObject({ status: 'succeeded' });
    expect(await state(c, domain)).toMatchObject({ status: 'off', ds_records: [] });

    // Only an active domain's zone is signed.
    const registering = await insertActiveDomain(app, c, { status: 'registering' });
    const refused = await send(c, 'POST', registering);
    expect(refused.status).toBe(409);
    expect(await readJson<MessageErrorBody>(refused)).toMatchObject({ code: 'DOMAIN_STATE_CONFLICT' });
    expect((await send(c, 'GET', `nosuch-${domain}`)).status).toBe(404);
  });
});

describe('a DNSSEC change the api wrote but never started', () => {
  it('is started by the operation reconciler (it reserves nothing, so only its age decides)', async () => {
    const c = await dnsCustomer(app, 'test');
    const domain = await insertActiveDomain(app, c);
    const { rows } = await app.deps.db.query<{ user_id: string }>('SELECT user_id FROM memberships WHERE org_id = $1', [c.org.id]);
    // What an api killed right after its transaction leaves: the operation and `signing`, no workflow.
    const principal = { livemode: false, user: { id: rows[0]!.user_id }, keyId: undefined } as unknown as Principal;
    const parsed = parseDomainName(domain);
    if (!parsed.ok) throw new Error(parsed.reason);
    const stranded = await withTransaction(app.deps.db, (tx) =>
      writeChange(
        tx,
        { deps: app.deps, principal, orgId: c.org.id, domainName: parsed.value, change: 'enable', idempotency: { key: `stranded-${domain}` } as never, requestId: 'req_test' },
        `dnssec-enable:${c.org.id}:test:${rows[0]!.user_id}:stranded-${domain}`,
        'stranded',
      ),
    );
    await app.deps.db.query(`UPDATE operations SET created_at = now() - interval '30 seconds' WHERE id = $1`, [stranded.id]);
    expect((await state(c, domain)).status).toBe('signing');

    const summary = (await app.deps.temporal.client.workflow.execute('reconcileOperationsWorkflow', {
      workflowId: `reconcile-dnssec-${domain}`,
      taskQueue: app.deps.config.temporal.taskQueue,
      args: [{ graceMs: 2_000, maxStartAgeMs: 3_600_000, limit: 1_000 }],
    })) as ReconcileOperationsSummary;
    expect(summary.started).toContain(stranded.id);
    expect(await finished(c, stranded.id)).toMatchObject({ status: 'succeeded' });
    expect((await state(c, domain)).status).toBe('active');
  });
});
