/**
 * `npm run bench [-- --scenario paths|mixed|webhooks|micro|mail|scale|neighbours|all[,…]] [--only reads,layers,dns,zone,registrations] [--json FILE]`: figures beside their
 * floors, measured in the same run, never asserted (docs/bench.md). The api and worker run compiled,
 * as `npm start` runs them, each in its own process; the load comes from this process.
 * BENCH_PROFILE=1 runs the api and workers under `node --cpu-prof` (profiles in .data/bench/profiles/);
 * BENCH_NODE_FLAGS adds node flags to every process it starts.
 * Needs PostgreSQL and Redis as `npm run dev` does; starts its own Temporal dev server and PowerDNS.
 */
import { parseArgs } from 'node:util';
import os from 'node:os';
import { startStack, type Stack } from './lib/stack.js';
import { printRows, writeJson, type BenchRow } from './lib/report.js';
import { benchPaths, PATH_PARTS, type PathPart } from './scenarios/paths.js';
import { benchMixed } from './scenarios/mixed.js';
import { benchWebhooks } from './scenarios/webhooks.js';
import { benchScale } from './scenarios/scale.js';
import { benchNeighbours } from './scenarios/neighbours.js';
import { benchMailForwarding } from './scenarios/mailForwarding.js';
import { ZONE_FILE_LIMIT_BYTES } from '../src/features/dns/zone.routes.js';
import { ZONE_FILE_MAX_RECORDS } from '../src/features/dns/zoneFileImport.js';
import { MAX_REGISTRATIONS_PER_ORG_AND_MODE } from '../src/features/acmeDns/acmeDns.js';
import { benchCaaBatch } from './dnsRecords.js';
import { benchConsume } from './rateLimit.js';
import { benchCliStart } from './cliStart.js';
import { benchCustomer } from './lib/customer.js';

const SCENARIOS = ['paths', 'mixed', 'webhooks', 'micro', 'mail', 'scale', 'neighbours', 'all'] as const;
type Scenario = (typeof SCENARIOS)[number];

const number = (name: string, fallback: number) => Number(process.env[name] ?? fallback);
const sizes = (name: string, fallback: string) => (process.env[name] ?? fallback).split(',').map(Number);

async function micro(stack: Stack): Promise<BenchRow[]> {
  const section = 'In-process checks (no floor): CAA iodef batch of 100 ~2 KB records; the limiter alone against Redis';
  const caa = benchCaaBatch().map((row): BenchRow => ({ section, name: `CAA batch, ${row.variant}`, value: row.batchMs, unit: 'ms' }));
  const limiter = await benchConsume(5_000, { redisUrl: stack.config.redisUrl });
  const customer = await benchCustomer(stack.deps, 'cli');
  const cli = await benchCliStart({ apiUrl: stack.api.url, testKey: customer.testKey, runs: number('BENCH_CLI_RUNS', 20) });
  return [...caa, { section, name: 'limiter consume() p50', value: limiter.p50Ms, unit: 'ms', detail: `p99 ${limiter.p99Ms.toFixed(3)} ms; degraded ${limiter.degraded}` }, ...cli];
}

async function main(): Promise<void> {
  const { values } = parseArgs({ options: { scenario: { type: 'string', default: 'paths' }, only: { type: 'string' }, json: { type: 'string' } } });
  const parts = values.only ? values.only.split(',') : PATH_PARTS;
  const unknown = parts.filter((part) => !(PATH_PARTS as readonly string[]).includes(part));
  if (unknown.length > 0) throw new Error(`--only takes ${PATH_PARTS.join(', ')} (comma-separated), not ${unknown.join(', ')}`);
  // Several at once (`all,scale`) share one stack: what bench/smoke.ts runs in CI.
  const scenarios = values.scenario.split(',') as Scenario[];
  const unknownScenarios = scenarios.filter((s) => !SCENARIOS.includes(s));
  if (unknownScenarios.length > 0) throw new Error(`--scenario takes ${SCENARIOS.join(', ')} (comma-separated), not ${unknownScenarios.join(', ')}`);
  const runs = (s: Scenario) => scenarios.includes(s) || (scenarios.includes('all') && s !== 'scale' && s !== 'neighbours');
  console.log(`Bench on ${os.cpus().length} × ${os.cpus()[0]?.model ?? 'CPU'}, ${Math.round(os.totalmem() / 2 ** 30)} GB, Node ${process.version}; load average ${os.loadavg().map((n) => n.toFixed(2)).join(' ')}`);
  const stack = await startStack();
  const rows: BenchRow[] = [];
  const show = (more: BenchRow[]) => {
    printRows(more);
    rows.push(...more);
  };
  try {
    if (runs('paths')) {
      show(
        await benchPaths(stack, {
          seconds: number('BENCH_SECONDS', 5),
          sequentialRequests: number('BENCH_REQUESTS', 1_000),
          registrations: number('BENCH_REGISTRATIONS', 30),
          registrationWarmup: number('BENCH_REGISTRATION_WARMUP', 400),
          concurrentSeconds: number('BENCH_CONCURRENT_SECONDS', 30),
          dnsRecords: number('BENCH_DNS_RECORDS', 100),
          zoneRecords: number('BENCH_ZONE_RECORDS', 5_000),
        }, parts as PathPart[]),
      );
    }
    if (runs('mixed')) {
      const mixed = { seconds: number('BENCH_MIXED_SECONDS', 90), clients: number('BENCH_MIXED_CLIENTS', 6) };
      show(await benchMixed(stack, { ...mixed, label: 'one worker process' }));
      await stack.startWorker();
      show(await benchMixed(stack, { ...mixed, label: 'two worker processes' }));
    }
    if (runs('webhooks')) show(await benchWebhooks(stack, { count: number('BENCH_WEBHOOK_EVENTS', 200), spacingMs: 20 }));
    if (runs('micro')) show(await micro(stack));
    if (runs('mail')) show(await benchMailForwarding(stack, { latencyRuns: number('BENCH_MAIL_LATENCY_RUNS', 10), messages: number('BENCH_MAIL_MESSAGES', 100) }));
    // Minutes long (seeding 100,000 domains, the backfill): only when asked for, not with `all`.
    if (runs('scale')) {
      await benchScale(
        stack,
        {
          base: 100,
          zoneSizes: sizes('BENCH_SCALE_ZONE_SIZES', '1000,10000,50000'),
          orgSizes: sizes('BENCH_SCALE_ORG_SIZES', '1000,10000,100000'),
          lifecycleMax: number('BENCH_SCALE_LIFECYCLE_MAX', 10_000),
          webhookEndpoints: number('BENCH_SCALE_WEBHOOK_ENDPOINTS', 1_000),
          webhookEvents: number('BENCH_SCALE_WEBHOOK_EVENTS', 10_000),
          webhookBurstEvents: number('BENCH_SCALE_WEBHOOK_BURST_EVENTS', 100_000),
          webhookIdleEvents: number('BENCH_SCALE_WEBHOOK_IDLE_EVENTS', 50),
          backlogEvents: number('BENCH_SCALE_BACKLOG_EVENTS', 20_000),
          parts: (process.env.BENCH_SCALE_PARTS ?? 'zone,org,webhooks').split(','),
        },
        show,
      );
    }
    // Last, and only when asked for: it leaves the api and worker running with a development
    // deployment's limits, and the worker a backlog of the noisy organisation's deliveries.
    if (runs('neighbours')) {
      show(
        await benchNeighbours(stack, {
          quietSeconds: number('BENCH_NEIGHBOURS_QUIET_SECONDS', 15),
          noisySeconds: number('BENCH_NEIGHBOURS_NOISY_SECONDS', 25),
          junkBytes: number('BENCH_NEIGHBOURS_JUNK_BYTES', ZONE_FILE_LIMIT_BYTES),
          // The most a free plan's zone may hold, then the most one import takes.
          importRecords: sizes('BENCH_NEIGHBOURS_IMPORT_RECORDS', `10000,${ZONE_FILE_MAX_RECORDS}`),
          exportRecords: number('BENCH_NEIGHBOURS_EXPORT_RECORDS', 10_000),
          acmeRegistrations: number('BENCH_NEIGHBOURS_ACME_REGISTRATIONS', MAX_REGISTRATIONS_PER_ORG_AND_MODE),
        }),
      );
    }
    console.log(`\napi RSS at the end: ${stack.api.process.rssMb().toFixed(0)} MB; logs in .data/bench/logs/`);
    if (values.json) await writeJson(values.json, rows, { scenario: scenarios.join(','), finishedAt: new Date().toISOString() });
  } finally {
    await stack.close();
  }
}

main().catch((err: unknown) => {
  console.error(err);
  process.exitCode = 1;
});
