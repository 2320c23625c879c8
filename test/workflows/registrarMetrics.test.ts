/**
 * The operator's counters for registrar trouble, scraped over HTTP from the metrics listener of a
 * worker: account refusals (DNSimple's 402 and 403, openapi.yml components.responses) and the
 * drift a reconciliation finds. Each counter moves by exactly what happened, under bounded labels.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../support/testApp.js';
import { FakeDnsimple, registrarEnv } from '../support/fakeDnsimple.js';
import { liveCustomers } from '../support/liveCustomers.js';
import { insertActiveDomain } from '../support/domains.js';
import { findDomainOfOrg, updateDomain } from '../../src/features/domains/domains.repository.js';
import { startMetricsServer } from '../../src/metrics/server.js';
import type { ListeningServer } from '../../src/http/listen.js';
import type { RegistrarReconcileSummary as ReconcileSummary } from '../../src/features/registrarDrift/registrarDrift.contract.js';
import { randomBase62 } from '../../src/ids.js';
import { byLabel, scrape as scrapeUrl, type Sample } from '../support/metrics.js';
import { modeOf } from '../../src/db/modeScope.js';

let dnsimple: FakeDnsimple;
let app: TestApp;
let metricsServer: ListeningServer;
beforeAll(async () => {
  dnsimple = await FakeDnsimple.start();
  app = await startTestApp({ worker: true, env: { ...registrarEnv(dnsimple), REGISTRAR_RECONCILE_INTERVAL: '6h' } });
  // What startService does when METRICS_PORT is set (test/process.test.ts covers that wiring).
  metricsServer = await startMetricsServer(app.deps.metrics, { host: '127.0.0.1', port: 0 }, app.deps.logger);
});
afterAll(async () => {
  await metricsServer?.close(1_000);
  await app?.close();
  await dnsimple?.close();
});

const scrape = () => scrapeUrl(`${metricsServer.url}/metrics`);
const accountErrors = (samples: Sample[]) => byLabel(samples, 'registrar_account_errors_total', (l) => `${l.adapter}/${l.status}`);
const drift = (samples: Sample[]) => byLabel(samples, 'registrar_drift_total', (l) => l.kind!);

const inYears = (years: number) => new Date(Date.now() + years * 365 * 86_400_000);
const iso = (d: Date) => d.toISOString().replace(/\.\d{3}Z$/, 'Z');

describe('registrar metrics', () => {
  it('counts account refusals and reconciliation drift exactly, with no id or domain name in any label', async () => {
    const before = await scrape();
    // Every series exists from the start, so alerts see them before the first event (at zero in a new
    // process; this one may have run other test files first, so what follows is counted as deltas).
    expect(Object.keys(accountErrors(before.samples)).sort()).toEqual(['dnsimple/401', 'dnsimple/402', 'dnsimple/403']);
    expect(Object.keys(drift(before.samples)).sort()).toEqual(['auto_renew_on', 'expiry_mismatch', 'missing_upstream', 'unknown_upstream']);
    // Node's default metrics are there too.
    expect(before.samples.some((s) => s.name === 'process_resident_memory_bytes')).toBe(true);

    // Two live registrations refused for the account: an unpaid invoice (402), a token without scope (403).
    const live = liveCustomers(app);
    const c = await live.customer(10_000);
    const unpaid = `unpaid-${randomBase62(8).toLowerCase()}.com`;
    const unscoped = `unscoped-${randomBase62(8).toLowerCase()}.com`;
    dnsimple.fail({ method: 'POST', path: new RegExp(`${unpaid}/registrations$`) }, { status: 402, body: { message: 'You have purchase invoices that need to be paid for: 12345-1010.' } });
    dnsimple.fail({ method: 'POST', path: new RegExp(`${unscoped}/registrations$`) }, { status: 403, body: { message: 'Permission Denied. Required Scope: registrar:*' } });
    const operations = await Promise.all(
      [unpaid, unscoped].map(async (name) => {
        const res = await live.post(c, `/api/v1/orgs/${c.org.id}/domains`, `metrics-${name}`, { name, years: 1, registrant_contact_id: c.contactId });
        expect(res.status).toBe(202);
        return live.finish(c.token, res.headers.get('location')!);
      }),
    );
    for (const op of operations) expect(op).toMatchObject({ status: 'failed', error: { code: 'UPSTREAM_UNAVAILABLE' } });

    // A reconciliation finding one drift of each kind the double can show (and ours missing upstream).
    const expires = inYears(1);
    const ours = async (label: string, upstream: Record<string, unknown> | false) => {
      const name = `${label}-${randomBase62(8).toLowerCase()}.com`;
      await insertActiveDomain(app, { org: c.org, livemode: true }, { name });
      const domain = (await findDomainOfOrg(app.deps.db, modeOf(true), c.org.id, name))!;
      await updateDomain(app.deps.db, modeOf(true), domain.id, { expires_at: expires });
      if (upstream) dnsimple.setDomain(name, { held: 'registered', available: false, expiresAt: iso(expires), ...upstream });
      return { name, id: domain.id };
    };
    const domains = [
      await ours('in-step', {}),
      await ours('expiry', { expiresAt: iso(inYears(2)) }),
      await ours('autorenew', { autoRenew: true }),
      await ours('missing', false),
    ];
    const stranger = `stranger-${randomBase62(8).toLowerCase()}.com`;
    dnsimple.setDomain(stranger, { held: 'registered', available: false, expiresAt: iso(expires) });
    const summary = (await app.deps.temporal.client.workflow.execute('registrarReconcileWorkflow', {
      workflowId: `reconcile-metrics-${randomBase62(8)}`,
      taskQueue: app.deps.config.temporal.taskQueue,
      args: [{ perPage: 100 }],
    })) as ReconcileSummary;
    expect(summary.drift).toMatchObject({ expiry_mismatch: 1, auto_renew_on: 1, unknown_upstream: 1 });
    // Other test files' live domains share the database and are missing from this double too.
    expect(summary.drift.missing_upstream).toBeGreaterThanOrEqual(1);

    const after = await scrape();
    const since = (now: Record<string, number>, then: Record<string, number>) => Object.fromEntries(Object.entries(now).map(([k, v]) => [k, v - (then[k] ?? 0)]));
    expect(since(accountErrors(after.samples), accountErrors(before.samples))).toEqual({ 'dnsimple/401': 0, 'dnsimple/402': 1, 'dnsimple/403': 1 });
    expect(since(drift(after.samples), drift(before.samples))).toEqual(summary.drift);

    // Bounded labels: closed lists only, and nothing that names a customer, a domain or an operation.
    const registrarSamples = after.samples.filter((s) => s.name.startsWith('registrar_'));
    for (const s of registrarSamples) {
      expect(Object.keys(s.labels).sort()).toEqual(s.name === 'registrar_drift_total' ? ['kind'] : ['adapter', 'status']);
    }
    const secrets = [unpaid, unscoped, stranger, c.org.id, c.contactId, ...domains.flatMap((d) => [d.name, d.id]), ...operations.map((op) => op.id)];
    for (const secret of secrets) expect(after.text).not.toContain(secret);
    // Nor the upstream's text, which names our account and invoices (the invoice number whole: its
    // first digits alone turn up in figures such as a CPU time).
    expect(after.text).not.toMatch(/purchase invoices|12345-1010|Permission Denied/);
  });

  it('serves nothing but /metrics', async () => {
    expect((await fetch(`${metricsServer.url}/`)).status).toBe(404);
    expect((await fetch(`${metricsServer.url}/metrics`, { method: 'POST' })).status).toBe(404);
  });
});
