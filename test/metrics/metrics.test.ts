/**
 * What an operator scrapes from `/metrics` after a scripted journey through the real app and worker
 * (register, a DNS edit, a 429, an idempotent replay, a leak alert): each counter moves by exactly
 * what happened, and every label value of every series is on its label's allow-list, so no id, domain
 * name or key can ever become a series.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../support/testApp.js';
import { dnsCustomer, registerTestDomain, type Customer } from '../support/domains.js';
import { bearer, createKey, jsonHeaders, sessionToken, uniqueEmail } from '../support/actors.js';
import { startFakeGithub, type FakeGithub } from '../support/fakeGithub.js';
import { holdableClock } from '../support/manualClock.js';
import { startSmtpSink, type SmtpSink } from '../support/smtpSink.js';
import { scrape as scrapeUrl, valueOf, type Sample } from '../support/metrics.js';
import { startMetricsServer } from '../../src/metrics/server.js';
import type { ListeningServer } from '../../src/http/listen.js';
import { buildRoutes } from '../../src/routes.js';
import {
  DRIFT_KINDS,
  FINAL_OPERATION_STATUSES,
  LEAK_SOURCES,
  LEDGER_FLOWS,
  MODES,
  OPERATION_TYPES,
  RATE_LIMIT_METRIC_GROUPS,
  RATE_LIMIT_POOLS,
  UPSTREAM_OUTCOMES,
  WEBHOOK_ATTEMPT_OUTCOMES,
} from '../../src/metrics/registry.js';
import { UNMATCHED_ROUTE } from '../../src/metrics/http.js';
import { UPSTREAM_ADAPTERS } from '../../src/metrics/upstream.js';

const clock = holdableClock();
let app: TestApp;
let github: FakeGithub;
let smtp: SmtpSink;
let metricsServer: ListeningServer;
let c: Customer;

beforeAll(async () => {
  [github, smtp] = await Promise.all([startFakeGithub(), startSmtpSink()]);
  app = await startTestApp({ worker: true, env: { GITHUB_API_URL: github.url, GITHUB_TOKEN: 'ghp_metricsTest', SMTP_URL: smtp.url }, rateLimitClock: clock.now });
  metricsServer = await startMetricsServer(app.deps.metrics, { host: '127.0.0.1', port: 0 }, app.deps.logger);
  c = await dnsCustomer(app, 'test');
});
afterAll(async () => {
  await metricsServer?.close(1_000);
  await app?.close();
  await Promise.all([github?.close(), smtp?.close()]);
});

const scrape = async () => (await scrapeUrl(`${metricsServer.url}/metrics`)).samples;

/**
 * The port methods of the registrar, its account and the DNS provider: the `call` label's values.
 * Every one, not only those this journey calls: a test process runs other files first
 * (vitest.config.ts), and their calls are on the process's series too.
 */
const UPSTREAM_CALLS = [
  'checkAvailability', 'register', 'registrationStatus', 'transfer', 'transferStatus', 'cancelTransfer', 'renew', 'renewalStatus',
  'setLock', 'setNameservers', 'setWhoisPrivacy', 'getAuthCode', 'quote', 'domainExpiry', 'disableAutoRenew', 'syncContact', 'listDomains',
  'listDsRecords', 'addDsRecord', 'deleteDsRecord',
  'createZone', 'deleteZone', 'applyChanges', 'zoneApex', 'signZone', 'unsignZone',
];

/** Every label any series may carry, with the values it may take. Node's defaults take runtime names. */
function allowList(): Record<string, (value: string) => boolean> {
  const oneOf = (values: readonly (string | number)[]) => (value: string) => values.map(String).includes(value);
  const runtimeName = (value: string) => /^[A-Za-z_][A-Za-z0-9_]{0,40}$/.test(value);
  const routes = [...buildRoutes(app.deps).map((r) => r.path), UNMATCHED_ROUTE];
  return {
    // Declared paths only: the app's, and those test files add to their apps (test/support/testRoutes.ts),
    // which other files run earlier in this process may have counted.
    route: (value) => oneOf(routes)(value) || /^(\/api\/v1)?\/test(\/[a-z-]+|\/\{[a-z_]+\})+$/.test(value),
    method: oneOf(['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS', 'OTHER']),
    status: (value) => /^[1-5]\d\d$/.test(value) || [...FINAL_OPERATION_STATUSES, 'pending', 'running'].includes(value),
    le: (value) => value === '+Inf' || Number.isFinite(Number(value)),
    group: oneOf(RATE_LIMIT_METRIC_GROUPS),
    pool: oneOf(RATE_LIMIT_POOLS),
    outcome: oneOf([...UPSTREAM_OUTCOMES, 'allowed', 'refused', 'first', 'replayed', 'conflict_reused', 'conflict_in_use', 'revoked', 'already_revoked', 'reported', ...WEBHOOK_ATTEMPT_OUTCOMES]),
    flow: oneOf(LEDGER_FLOWS),
    mode: oneOf(MODES),
    type: (value) => OPERATION_TYPES.includes(value as never) || runtimeName(value),
    system: oneOf(['registrar', 'dns_provider']),
    adapter: oneOf(UPSTREAM_ADAPTERS),
    call: oneOf(UPSTREAM_CALLS),
    kind: (value) => DRIFT_KINDS.includes(value as never) || ['major', 'minor', 'incremental', 'weakcb'].includes(value),
    source: oneOf(LEAK_SOURCES),
    response: oneOf(['started', 'already_handled']),
    state: oneOf(['total', 'idle', 'waiting']),
    purpose: oneOf(['work', 'claims']),
    connection: oneOf(['commands', 'subscriber']),
    // Node's defaults: heap spaces and the version.
    space: runtimeName,
    version: (value) => /^v\d+\.\d+\.\d+$/.test(value),
    major: (value) => /^\d+$/.test(value),
    minor: (value) => /^\d+$/.test(value),
    patch: (value) => /^\d+$/.test(value),
  };
}

const delta = (before: Sample[], after: Sample[], name: string, labels: Record<string, string> = {}) =>
  valueOf(after, name, labels) - valueOf(before, name, labels);


describe('/metrics after a journey', () => {
  it('counts what happened exactly, under labels from closed lists only', async () => {
    const before = await scrape();

    // Registration through the real workflow: a top-up, a reservation, a capture, one operation.
    const domain = await registerTestDomain(app, c);
    // An idempotent request sent twice: one top-up, one replay.
    const topUp = () =>
      app.fetch(`/api/v1/orgs/${c.org.id}/billing/top-ups`, { method: 'POST', headers: { ...jsonHeaders(c.key), 'idempotency-key': `metrics-${domain}` }, body: '{"amount":700}' });
    expect((await topUp()).status).toBe(201);
    const replay = await topUp();
    expect(replay.status).toBe(201);
    expect(replay.headers.get('idempotent-replayed')).toBe('true');
    // A DNS edit (test mode, no test DNS host: stored, sent nowhere).
    const record = await app.fetch(`/api/v1/orgs/${c.org.id}/domains/${domain}/records`, { method: 'POST', headers: jsonHeaders(c.key), body: JSON.stringify({ type: 'A', name: 'www', content: '192.0.2.1' }) });
    expect(record.status).toBe(201);
    // A 429: three bulk checks in one second from a free-plan session (a burst of 2), with the
    // limiter's clock held so that they are decided in that one second however slowly they are answered.
    const stranger = await sessionToken(app, uniqueEmail('burst'));
    const bulk = await clock.held(() =>
      Promise.all(Array.from({ length: 3 }, () => app.fetch('/api/v1/domains/availability/bulk', { method: 'POST', headers: jsonHeaders(stranger), body: '{}' }))),
    );
    const bulkAnswers = bulk.map((r) => r.status).sort();
    expect(bulkAnswers).toEqual([422, 422, 429]);
    const bulkOf = (status: number) => bulkAnswers.filter((answer) => answer === status).length;
    // A leak alert for a test key: a leak workflow reports it (test keys are not revoked).
    const leaked = await createKey(app, c.session, { name: 'leaked', scopes: ['domains:read'], mode: 'test' });
    const alert = JSON.stringify([{ token: leaked.key, type: 'domain_service_api_key', url: 'https://github.com/octo/app/blob/1/config.js', source: 'content' }]);
    const signer = github.keys[github.keys.length - 1]!;
    const alertRes = await app.fetch('/api/v1/secret-scanning/github', {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'github-public-key-identifier': signer.identifier, 'github-public-key-signature': github.sign(alert, signer) },
      body: alert,
    });
    expect(alertRes.status).toBe(200);
    await app.deps.temporal.client.workflow.getHandle(`leaked-test-key:${leaked.id}`).result();
    // A path no route declares.
    expect((await app.fetch(`/api/v1/no-such-thing/${domain}`, { headers: bearer(c.key) })).status).toBe(404);

    const after = await scrape();
    const d = (name: string, labels: Record<string, string> = {}) => delta(before, after, name, labels);
    const test = { mode: 'test' };

    expect(d('ledger_entries_total', { ...test, flow: 'top_up' })).toBe(2);
    expect(d('ledger_amount_minor_units_total', { ...test, flow: 'top_up' })).toBe(5_700);
    expect(d('ledger_entries_total', { ...test, flow: 'reservation' })).toBe(1);
    expect(d('ledger_entries_total', { ...test, flow: 'capture' })).toBe(1);
    expect(d('ledger_entries_total', { ...test, flow: 'release' })).toBe(0);
    expect(d('ledger_amount_minor_units_total', { ...test, flow: 'capture' })).toBe(d('ledger_amount_minor_units_total', { ...test, flow: 'reservation' }));
    expect(d('ledger_amount_minor_units_total', { ...test, flow: 'capture' })).toBeGreaterThan(0);

    expect(d('operation_duration_seconds_count', { ...test, type: 'domain.register', status: 'succeeded' })).toBe(1);
    expect(d('operation_duration_seconds_count', { status: 'failed' })).toBe(0);

    expect(d('idempotency_requests_total', { outcome: 'first' })).toBe(2); // the registration and the top-up
    expect(d('idempotency_requests_total', { outcome: 'replayed' })).toBe(1);
    expect(d('idempotency_requests_total', { outcome: 'conflict_reused' })).toBe(0);

    expect(d('rate_limit_decisions_total', { group: 'bulk', pool: 'key', outcome: 'refused' })).toBe(bulkOf(429));
    expect(d('rate_limit_decisions_total', { group: 'bulk', pool: 'key', outcome: 'allowed' })).toBe(bulkOf(422));

    const route = (path: string, method: string, status: string) => d('http_request_duration_seconds_count', { route: path, method, status });
    expect(route('/api/v1/domains/availability/bulk', 'POST', '429')).toBe(bulkOf(429));
    expect(route('/api/v1/domains/availability/bulk', 'POST', '422')).toBe(bulkOf(422));
    expect(route('/api/v1/orgs/{org_oid}/domains', 'POST', '202')).toBe(1);
    expect(route('/api/v1/orgs/{org_oid}/domains/{domain}/records', 'POST', '201')).toBe(1);
    // The top-up and its replay; registerTestDomain credits its balance through the factory, not over HTTP.
    expect(route('/api/v1/orgs/{org_oid}/billing/top-ups', 'POST', '201')).toBe(2);
    expect(route(UNMATCHED_ROUTE, 'GET', '404')).toBe(1);

    // Test-mode zones are on no DNS server here (no DNS_TEST_PROVIDER_URL): the registration's zone is
    // made by the synthetic provider, and the record edit is sent to none.
    expect(d('upstream_call_duration_seconds_count', { system: 'dns_provider', adapter: 'synthetic', call: 'createZone', outcome: 'ok' })).toBe(1);
    expect(d('upstream_call_duration_seconds_count', { system: 'dns_provider', call: 'applyChanges' })).toBe(0);
    expect(d('upstream_call_duration_seconds_count', { system: 'registrar', adapter: 'synthetic', call: 'register', outcome: 'ok' })).toBe(1);
    expect(d('upstream_call_duration_seconds_count', { system: 'registrar', outcome: 'error' })).toBe(0);

    expect(d('leak_alerts_total', { source: 'github_secret_scanning', response: 'started' })).toBe(1);
    expect(d('leaked_keys_handled_total', { mode: 'test', outcome: 'reported' })).toBe(1);

    // State read at scrape time.
    expect(valueOf(after, 'redis_connection_ready', { connection: 'commands' })).toBe(1);
    expect(valueOf(after, 'pg_pool_connections', { state: 'total' })).toBeGreaterThan(0);
    expect(after.some((s) => s.name === 'nodejs_eventloop_lag_seconds')).toBe(true);

    // No label value outside its list; nothing of this journey's ids, names or keys anywhere.
    const allowed = allowList();
    const secrets = [domain, c.org.id, leaked.id, leaked.key, c.key.slice(0, 16)];
    for (const sample of after) {
      for (const [label, value] of Object.entries(sample.labels)) {
        expect(allowed[label], `label ${label} of ${sample.name}`).toBeDefined();
        expect(allowed[label]!(value), `${sample.name}{${label}="${value}"}`).toBe(true);
        for (const secret of secrets) expect(value).not.toContain(secret);
      }
    }
  });
});
