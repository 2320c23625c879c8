/**
 * The observability stack's files (deploy/prometheus, deploy/grafana) as Prometheus itself reads
 * them: `promtool` (Debian's `prometheus` package) checks the alert rules and the scrape config and
 * runs rule unit tests (the alerts fire on the series that should fire them, and not on healthy ones);
 * every Grafana panel query parses as PromQL and names only metrics this service (or Temporal's SDK) exports.
 */
import { spawnSync } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { stringify as toYaml, parse as parseYaml } from 'yaml';
import { REPO_ROOT } from './support/processes.js';
import { createMetrics } from '../src/metrics/registry.js';
import { observeState } from '../src/metrics/collectors.js';
import { createMailMetrics } from '../src/features/emailForwards/index.js';

let scratch: string;
beforeAll(async () => {
  scratch = await mkdtemp(path.join(os.tmpdir(), 'promtool-'));
});
afterAll(async () => {
  await rm(scratch, { recursive: true, force: true });
});

function promtool(...args: string[]): { status: number | null; output: string } {
  const run = spawnSync('promtool', args, { encoding: 'utf8', cwd: scratch });
  if (run.error) throw new Error(`promtool is missing: apt-get install -y prometheus (${run.error.message})`);
  return { status: run.status, output: `${run.stdout}${run.stderr}` };
}

const deploy = (file: string) => path.join(REPO_ROOT, 'deploy', file);

/** Every metric name /metrics can carry: ours (with histogram suffixes), Node's defaults, and Temporal's SDK's. */
function exportedName(name: string): boolean {
  const metrics = createMetrics();
  // The mail forwarder's (src/features/emailForwards/mailMetrics.ts) are served beside Postfix.
  createMailMetrics(metrics.registry);
  // The state gauges need sources only when collected; their names are what matters here.
  observeState(metrics, { db: undefined as never, claimsDb: undefined as never, redis: undefined as never, subscriber: undefined as never, unfinishedOperations: () => Promise.resolve([]), undispatchedEvents: () => Promise.resolve({ count: 0, oldestAgeSeconds: 0 }) });
  const ours = new Set(
    metrics.registry.getMetricsAsArray().flatMap((m) => {
      const kind = (m as unknown as { type: string }).type;
      return kind === 'histogram' ? [`${m.name}_bucket`, `${m.name}_count`, `${m.name}_sum`] : [m.name];
    }),
  );
  return ours.has(name) || name.startsWith('temporal_') || ['up', 'time'].includes(name);
}

/** The metric names a PromQL expression reads: identifiers that are neither functions, keywords nor labels. */
function metricNames(expr: string): string[] {
  const bare = expr
    .replace(/"[^"]*"/g, '""')
    .replace(/\{[^}]*\}/g, ' ')
    .replace(/\[[^\]]*\]/g, ' ')
    .replace(/\b(by|without|on|ignoring|group_left|group_right)\s*\([^)]*\)/g, ' ');
  const keywords = new Set(['and', 'or', 'unless', 'offset', 'bool']);
  return [...bare.matchAll(/([a-zA-Z_:][a-zA-Z0-9_:]*)(\s*\()?/g)].filter(([, word, call]) => !call && !keywords.has(word!)).map(([, word]) => word!);
}

describe('Prometheus alert rules and scrape config', () => {
  it('pass promtool check rules and check config', async () => {
    const rules = promtool('check', 'rules', deploy('prometheus/alerts.yml'));
    expect(rules.output).toContain('SUCCESS');
    expect(rules.status).toBe(0);
    // The config names the rules by their path in the container: point it at the repository's copy.
    const config = parseYaml(await readFile(deploy('prometheus/prometheus.yml'), 'utf8')) as { rule_files: string[] };
    config.rule_files = [deploy('prometheus/alerts.yml')];
    await writeFile(path.join(scratch, 'prometheus.yml'), toYaml(config));
    const checked = promtool('check', 'config', path.join(scratch, 'prometheus.yml'));
    expect(checked.output).toContain('SUCCESS');
    expect(checked.status).toBe(0);
  });

  it('alert on what they say, and only then (promtool test rules)', async () => {
    const group = (parseYaml(await readFile(deploy('prometheus/alerts.yml'), 'utf8')) as { groups: { rules: { alert: string; expr: string; annotations?: { description?: string } }[] }[] }).groups[0]!;
    expect(group.rules.map((r) => r.alert).sort()).toEqual(
      ['ApiServerErrors', 'LeakScanNotRunning', 'MailForwardingDeferredQueueGrowing', 'OperationsFailing', 'OperationsStuck', 'RegistrarAccountRefused', 'RegistrarErrors', 'ScrapeTargetDown', 'WebhookEndpointDisabled', 'WebhookOutboxStalled'].sort(),
    );
    // The rules read only metrics we export (and the webhook counter, which comes with webhook delivery).
    for (const rule of group.rules) {
      for (const name of metricNames(rule.expr)) {
        expect(exportedName(name) || name === 'webhook_endpoints_disabled_total' || name === 'process_start_time_seconds', `${rule.alert}: ${name}`).toBe(true);
      }
    }
    const description = (alert: string) => group.rules.find((r) => r.alert === alert)!.annotations?.description;
    const fires = (at: string, alert: string, labels: Record<string, string>, summary: string) => ({
      eval_time: at,
      alertname: alert,
      exp_alerts: [{ exp_labels: labels, exp_annotations: { summary, ...(description(alert) ? { description: description(alert) } : {}) } }],
    });
    const http = (status: string) => `http_request_duration_seconds_count{route="/api/v1/orgs/{org_oid}/domains",method="POST",status="${status}"}`;
    const tests = {
      rule_files: [deploy('prometheus/alerts.yml')],
      evaluation_interval: '1m',
      tests: [
        {
          interval: '1m',
          input_series: [
            // 10% of answers are 500s: fires. (A healthy api's series would be all 2xx.)
            { series: http('202'), values: '0+90x30' },
            { series: http('500'), values: '0+10x30' },
            // A registration running for two hours: stuck. A transfer running for two hours: normal.
            { series: 'operations_unfinished_oldest_age_seconds{type="domain.register",status="running",mode="live"}', values: '7200x30' },
            { series: 'operations_unfinished_oldest_age_seconds{type="domain.transfer",status="running",mode="live"}', values: '7200x30' },
            // The registrar fails 1 call in 2.
            { series: 'upstream_call_duration_seconds_count{system="registrar",adapter="dnsimple",call="register",outcome="ok"}', values: '0+5x30' },
            { series: 'upstream_call_duration_seconds_count{system="registrar",adapter="dnsimple",call="register",outcome="unavailable"}', values: '0+5x30' },
            // A worker up for an hour whose leak scans never completed.
            { series: 'leak_scan_last_success_timestamp_seconds{job="domain-service",role="worker"}', values: '0x60' },
            { series: 'process_start_time_seconds{job="domain-service",role="worker"}', values: '0x60' },
            { series: 'webhook_endpoints_disabled_total', values: '0 0 1 1 1' },
            // No dispatcher: the oldest undispatched event ages a minute a minute.
            { series: 'events_undispatched_oldest_age_seconds{job="domain-service",role="api"}', values: '0+60x30' },
            // The forwarder's deferred queue grows by 10 a minute for an hour; a steady queue of 500 stays silent.
            { series: 'mail_forwarding_deferred_queue{job="mail-forwarder",mode="live"}', values: '0+10x90' },
            { series: 'mail_forwarding_deferred_queue{job="mail-forwarder",mode="test"}', values: '500x90' },
          ],
          alert_rule_test: [
            fires('15m', 'ApiServerErrors', { severity: 'page' }, '10% of api answers are 5xx'),
            fires('20m', 'OperationsStuck', { severity: 'ticket', type: 'domain.register', status: 'running', mode: 'live' }, 'The oldest running domain.register (live) has been unfinished for 2h 0m 0s'),
            fires('25m', 'RegistrarErrors', { severity: 'page', adapter: 'dnsimple' }, '50% of dnsimple calls fail'),
            fires('55m', 'LeakScanNotRunning', { severity: 'ticket' }, 'The leak-scan schedule has not completed a scan for 55m 0s'),
            fires('4m', 'WebhookEndpointDisabled', { severity: 'ticket' }, '1 webhook endpoints were disabled in the last hour'),
            fires('20m', 'WebhookOutboxStalled', { severity: 'page' }, 'The oldest event not yet handed to webhook delivery is 20m 0s old'),
            // Past 10 minutes from 11m on, but not yet for 5 minutes: silence.
            { eval_time: '15m', alertname: 'WebhookOutboxStalled', exp_alerts: [] },
            // Before the worker has been up for three scan intervals: silence. No operation failed: silence.
            { eval_time: '30m', alertname: 'LeakScanNotRunning', exp_alerts: [] },
            { eval_time: '15m', alertname: 'OperationsFailing', exp_alerts: [] },
            fires('75m', 'MailForwardingDeferredQueueGrowing', { severity: 'ticket', mode: 'live' }, '750 forwarded messages are deferred (live) and the queue keeps growing'),
            { eval_time: '30m', alertname: 'MailForwardingDeferredQueueGrowing', exp_alerts: [] },
          ],
        },
      ],
    };
    await writeFile(path.join(scratch, 'alerts.test.yml'), toYaml(tests));
    const run = promtool('test', 'rules', path.join(scratch, 'alerts.test.yml'));
    expect(run.output).toContain('SUCCESS');
    expect(run.status).toBe(0);
  });
});

describe('Grafana dashboard', () => {
  it('is provisioned from the repository, and every panel query parses and reads metrics we export', async () => {
    const dashboard = JSON.parse(await readFile(deploy('grafana/dashboards/domain-service.json'), 'utf8')) as {
      uid: string;
      panels: { type: string; title: string; datasource?: { uid: string }; targets?: { expr: string }[] }[];
    };
    const datasources = parseYaml(await readFile(deploy('grafana/provisioning/datasources/datasources.yml'), 'utf8')) as { datasources: { uid: string }[] };
    const uids = new Set(datasources.datasources.map((d) => d.uid));
    const queries = dashboard.panels.filter((p) => p.type !== 'row');
    const titles = queries.map((p) => p.title).join(' | ');
    for (const wanted of ['Request rate by route', 'Errors by route', 'Latency p95 by route', 'Operations finished by type and outcome', 'Operation duration', 'Upstream latency', 'Upstream errors', 'Rate-limit refusals', 'Ledger flows', 'Temporal schedule-to-start', 'Webhook delivery attempts', 'Webhook outbox']) {
      expect(titles).toContain(wanted);
    }
    const rules: { record: string; expr: string }[] = [];
    for (const panel of queries) {
      expect(uids.has(panel.datasource!.uid), panel.title).toBe(true);
      expect(panel.targets!.length, panel.title).toBeGreaterThan(0);
      for (const target of panel.targets!) {
        for (const name of metricNames(target.expr)) expect(exportedName(name), `${panel.title}: ${name}`).toBe(true);
        // Grafana's $__rate_interval becomes a fixed range so promtool can parse the query.
        rules.push({ record: `dashboard:panel_${rules.length}`, expr: target.expr.replaceAll('$__rate_interval', '5m') });
      }
    }
    await writeFile(path.join(scratch, 'dashboard-queries.yml'), toYaml({ groups: [{ name: 'dashboard', rules }] }));
    const run = promtool('check', 'rules', path.join(scratch, 'dashboard-queries.yml'));
    expect(run.output).toContain(`SUCCESS: ${rules.length} rules found`);
  });
});
