/**
 * The hot paths, each beside its floor measured in the same run (targets in docs/bench.md).
 */
import type { sameShapeWorkflow, Step } from '../servers/sameShapeWorkflow.js';
import { interleaved, takingTurns, sequential, type Request } from '../lib/load.js';
import { ratioRow, summarise, type BenchRow } from '../lib/report.js';
import { OperationWatcher, ledgerProblems } from '../lib/operations.js';
import { activeDomain, benchCustomer, type BenchCustomer } from '../lib/customer.js';
import { otherProviderZoneFile } from '../zoneFile.js';
import type { Stack } from '../lib/stack.js';
import { randomBase62 } from '../../src/ids.js';

/** How long the Temporal server has been idle when a registration's start reaches it, about. */
const START_IDLE_MS = 20;

/** A test-mode registration's steps (bench/servers/sameShapeWorkflow.ts says where they come from). */
export const REGISTRATION_SHAPE: Step[] = ['local', 'activity', 'local', 'local'];
const SHAPE_NAME = 'local, activity, local, local no-op workflow';

export interface PathOptions {
  seconds: number;
  sequentialRequests: number;
  registrations: number;
  /** Registrations sent before the measured ones, 10 at a time, each to its end. */
  registrationWarmup: number;
  concurrentSeconds: number;
  dnsRecords: number;
  zoneRecords: number;
}

const auth = (token: string) => ({ authorization: `Bearer ${token}` });
const json = (token: string) => ({ ...auth(token), 'content-type': 'application/json' });

async function readPaths(stack: Stack, c: BenchCustomer, o: PathOptions): Promise<BenchRow[]> {
  const section = `Reads at 10 connections, ${o.seconds} s each in one-second turns (load from the bench's process)`;
  const targets: { name: string; request: Request; atLeast: number }[] = [
    { name: 'GET /me, API key', request: { url: `${stack.api.url}/api/v1/me`, headers: auth(c.testKey) }, atLeast: 0.5 },
    { name: 'GET /me, session JWT', request: { url: `${stack.api.url}/api/v1/me`, headers: auth(c.session) }, atLeast: 0.5 },
    { name: 'GET availability, test key', request: { url: `${stack.api.url}/api/v1/domains/availability?name=bench-one.com`, headers: auth(c.testKey) }, atLeast: 0.6 },
  ];
  const [bare, io, ...runs] = await takingTurns([{ url: `${stack.floors.bare}/` }, { url: `${stack.floors.pgRedis}/` }, ...targets.map((target) => target.request)], o.seconds);
  if (!bare || !io) throw new Error('one run per floor');
  const floor = { name: 'bare Koa route', value: bare.requestsPerSecond };
  const rows: BenchRow[] = [
    { section, name: 'floor: bare Koa route', value: bare.requestsPerSecond, unit: 'req/s', detail: `p50 ${bare.p50Ms} ms, p99 ${bare.p99Ms} ms` },
    ratioRow({ section, name: 'floor: Koa + SELECT 1 + Redis GET', value: io.requestsPerSecond, unit: 'req/s', floor, detail: `p50 ${io.p50Ms} ms, p99 ${io.p99Ms} ms` }),
  ];
  for (const [index, target] of targets.entries()) {
    const run = runs[index]!;
    const bad = run.non2xx + run.errors;
    rows.push(
      ratioRow({
        section,
        name: target.name,
        value: run.requestsPerSecond,
        unit: 'req/s',
        floor,
        atLeast: target.atLeast,
        detail: `p50 ${run.p50Ms} ms, p99 ${run.p99Ms} ms (worst second ${run.worstRoundP99Ms} ms)${bad ? `, ${bad} non-2xx or errors` : ''}; ${((run.requestsPerSecond / io.requestsPerSecond) * 100).toFixed(0)} % of the Koa + SELECT 1 + GET floor`,
      }),
    );
    if (target.name.startsWith('GET /me')) {
      rows.push({ section, name: `${target.name}: p99`, value: run.p99Ms, unit: 'ms', target: { text: '< 10 ms', met: run.p99Ms < 10 } });
    }
  }
  const names = JSON.stringify({ names: Array.from({ length: 500 }, (_, i) => `bench-bulk-${i}.com`) });
  const bulk = await sequential({ url: `${stack.api.url}/api/v1/domains/availability/bulk`, method: 'POST', headers: json(c.testKey), body: names }, 100, 10);
  rows.push({ section: 'One request at a time', name: 'POST bulk availability, 500 names', value: bulk.p50, unit: 'ms', detail: `p99 ${bulk.p99.toFixed(2)} ms`, target: { text: 'p50 < 30 ms', met: bulk.p50 < 30 } });
  return rows;
}

async function layerCosts(stack: Stack, c: BenchCustomer, o: PathOptions): Promise<BenchRow[]> {
  const section = `What each layer adds to one POST, ${o.sequentialRequests} sequential requests per variant (p50)`;
  const post = (url: string, idempotent: boolean, route = '/bench/echo') => (i: number): Request => ({
    url: `${url}${route}`,
    method: 'POST',
    headers: { ...json(c.testKey), ...(idempotent ? { 'idempotency-key': `bench-${randomBase62(12)}-${i}` } : {}) },
    body: JSON.stringify({ n: i }),
  });
  const variants = [stack.layers.neither, stack.layers.rateLimiter, stack.layers.idempotency, stack.layers.both];
  const requests = [...variants.map((url, v) => post(url, v >= 2)), post(stack.layers.neither, false, '/bench/echo-claimed'), post(stack.layers.idempotency, true, '/bench/echo-claimed')];
  const [neither, limiter, idempotency, both, neitherClaimed, claimed] = await interleaved(requests, o.sequentialRequests);
  if (!neither || !limiter || !idempotency || !both || !neitherClaimed || !claimed) throw new Error('one summary per variant');
  const redisSamples: number[] = [];
  for (let i = 0; i < 1_050; i += 1) {
    const started = performance.now();
    await stack.deps.redis.get('bench:floor');
    if (i >= 50) redisSamples.push(performance.now() - started);
  }
  const redis = summarise(redisSamples);
  const floor = { name: 'one Redis GET round trip from the bench', value: redis.p50 };
  return [
    { section, name: 'POST, neither layer', value: neither.p50, unit: 'ms', detail: `p99 ${neither.p99.toFixed(2)} ms` },
    { section, name: 'rate limiter adds', value: limiter.p50 - neither.p50, unit: 'ms', floor, ratio: (limiter.p50 - neither.p50) / redis.p50, target: { text: '< 0.2 ms', met: limiter.p50 - neither.p50 < 0.2 } },
    { section, name: 'idempotency layer adds', value: idempotency.p50 - neither.p50, unit: 'ms', floor, ratio: (idempotency.p50 - neither.p50) / redis.p50, target: { text: '< 0.3 ms', met: idempotency.p50 - neither.p50 < 0.3 } },
    { section, name: 'idempotency layer adds, key claimed first', value: claimed.p50 - neitherClaimed.p50, unit: 'ms', detail: 'as on routes whose effects reach outside one transaction (a registration, a live DNS change)' },
    { section, name: 'both add', value: both.p50 - neither.p50, unit: 'ms', detail: `POST through every layer: p50 ${both.p50.toFixed(2)} ms, p99 ${both.p99.toFixed(2)} ms` },
  ];
}

async function sameShapeRoundTrips(stack: Stack, count: number): Promise<number[]> {
  const samples: number[] = [];
  for (let i = 0; i < count; i += 1) {
    const started = performance.now();
    await stack.temporal.workflow.execute<typeof sameShapeWorkflow>('sameShapeWorkflow', { taskQueue: stack.floorTaskQueue, workflowId: `bench-floor-${randomBase62(12)}`, args: [REGISTRATION_SHAPE] });
    samples.push(performance.now() - started);
  }
  return samples;
}

/**
 * How long this Temporal server takes to accept one workflow start (the call a 202 waits for), each
 * run awaited, then `idleMs` of quiet, before the next. On a virtual machine a server that has been
 * idle answers slower (its threads sleep and are woken): a registration's start comes some 20 ms into
 * its request, after the previous one has finished (docs/bench.md).
 */
async function workflowStarts(stack: Stack, count: number, idleMs: number): Promise<number[]> {
  const samples: number[] = [];
  for (let i = 0; i < count; i += 1) {
    const started = performance.now();
    const handle = await stack.temporal.workflow.start<typeof sameShapeWorkflow>('sameShapeWorkflow', { taskQueue: stack.floorTaskQueue, workflowId: `bench-start-${randomBase62(12)}`, args: [REGISTRATION_SHAPE] });
    samples.push(performance.now() - started);
    await handle.result();
    if (idleMs > 0) await new Promise((resolve) => setTimeout(resolve, idleMs));
  }
  return samples;
}

/** Same-shape workflows completed per second with `parallel` always in flight, for `seconds`. */
async function sameShapeRate(stack: Stack, parallel: number, seconds: number): Promise<number> {
  const until = Date.now() + seconds * 1_000;
  let done = 0;
  const loop = async () => {
    while (Date.now() < until) {
      await stack.temporal.workflow.execute<typeof sameShapeWorkflow>('sameShapeWorkflow', { taskQueue: stack.floorTaskQueue, workflowId: `bench-floor-${randomBase62(12)}`, args: [REGISTRATION_SHAPE] });
      done += 1;
    }
  };
  const started = Date.now();
  await Promise.all(Array.from({ length: parallel }, loop));
  return done / ((Date.now() - started) / 1_000);
}

interface Registered {
  acceptMs: number;
  /** From the 202 to `completed_at`. */
  completeMs: number;
  status: string;
  /**
   * With `timeApiCpu`, the api's CPU time from sending the request to reading its 202: meaningful only
   * with one request in flight, and summed over many (it moves in 10 ms ticks).
   */
  apiCpuTo202Ms?: number;
}

async function register(stack: Stack, c: BenchCustomer, watcher: OperationWatcher, timeApiCpu = false): Promise<Registered | undefined> {
  const name = `bench-${randomBase62(12).toLowerCase()}.com`;
  const cpuBefore = timeApiCpu ? stack.api.process.cpuMs() : 0;
  const started = performance.now();
  const res = await fetch(`${stack.api.url}/api/v1/orgs/${c.orgId}/domains`, {
    method: 'POST',
    headers: { ...json(c.testKey), 'idempotency-key': `bench-${name}` },
    body: JSON.stringify({ name, years: 1, registrant_contact_id: c.testContactId }),
  });
  const body = (await res.json()) as { id?: string };
  const acceptedPerf = performance.now();
  const acceptedAt = Date.now();
  const apiCpuTo202Ms = timeApiCpu ? stack.api.process.cpuMs() - cpuBefore : undefined;
  if (res.status !== 202 || !body.id) throw new Error(`register: ${res.status} ${JSON.stringify(body)}`);
  const ended = await watcher.ended(body.id);
  return { acceptMs: acceptedPerf - started, completeMs: ended.completedAt - acceptedAt, status: ended.status, apiCpuTo202Ms };
}

async function registrations(stack: Stack, o: PathOptions): Promise<BenchRow[]> {
  const watcher = new OperationWatcher(stack.deps.db);
  const one = await benchCustomer(stack.deps, 'register-one');
  const ten = await benchCustomer(stack.deps, 'register-ten');
  try {
    await sameShapeRoundTrips(stack, 10);
    const floorTrips = summarise(await sameShapeRoundTrips(stack, o.registrations));
    const startBackToBack = summarise(await workflowStarts(stack, o.registrations, 0));
    const floorStart = summarise(await workflowStarts(stack, o.registrations, START_IDLE_MS));
    // Ten senders share one count, so the warm-up is `registrationWarmup` registrations in all.
    let warming = o.registrationWarmup;
    await Promise.all(
      Array.from({ length: Math.min(10, warming) }, async () => {
        while (warming-- > 0) await register(stack, one, watcher);
      }),
    );
    const sequentialRuns: Registered[] = [];
    const cpuBefore = stack.api.process.cpuMs();
    for (let i = 0; i < o.registrations; i += 1) sequentialRuns.push((await register(stack, one, watcher, true))!);
    // Everything the api did meanwhile: the 202s, and whatever it runs in the background.
    const apiCpuPerRegistration = (stack.api.process.cpuMs() - cpuBefore) / o.registrations;
    const accept = summarise(sequentialRuns.map((r) => r.acceptMs));
    const complete = summarise(sequentialRuns.map((r) => r.completeMs));
    const section1 = `Test-mode registration, one at a time, ${o.registrations} of them`;

    const floorRate = await sameShapeRate(stack, 10, o.concurrentSeconds);
    const runs: Registered[] = [];
    const until = Date.now() + o.concurrentSeconds * 1_000;
    const started = Date.now();
    await Promise.all(
      Array.from({ length: 10 }, async () => {
        while (Date.now() < until) runs.push((await register(stack, ten, watcher))!);
      }),
    );
    const rate = runs.length / ((Date.now() - started) / 1_000);
    const accept10 = summarise(runs.map((r) => r.acceptMs));
    const complete10 = summarise(runs.map((r) => r.completeMs));
    const problems = await ledgerProblems(stack.deps.db, [one.orgId, ten.orgId]);
    const failed = [...sequentialRuns, ...runs].filter((r) => r.status !== 'succeeded').length;
    const section2 = `Test-mode registrations, 10 at a time for ${o.concurrentSeconds} s`;
    return [
      {
        section: section1,
        name: '202 latency',
        value: accept.p50,
        unit: 'ms',
        // The 202 waits for the workflow's start (an engine that cannot take it is a 503 with nothing reserved).
        detail: `p99 ${accept.p99.toFixed(1)} ms`,
        floor: {
          name: `one workflow start accepted by this Temporal server after ${START_IDLE_MS} ms idle, p50 (p99 ${floorStart.p99.toFixed(1)} ms; back to back, p50 ${startBackToBack.p50.toFixed(2)} ms)`,
          value: floorStart.p50,
        },
        ratio: accept.p50 / floorStart.p50,
        target: { text: 'p50 < 8 ms', met: accept.p50 < 8 },
      },
      {
        section: section1,
        name: 'api CPU per registration',
        value: apiCpuPerRegistration,
        unit: 'ms',
        detail: `the api process's user and system time over these registrations (its background work included), divided by their number; ${(sequentialRuns.reduce((sum, r) => sum + (r.apiCpuTo202Ms ?? 0), 0) / sequentialRuns.length).toFixed(1)} ms of it between sending each request and reading its 202`,
      },
      ratioRow({
        section: section1,
        name: '202 → succeeded',
        value: complete.p50,
        unit: 'ms',
        detail: `p99 ${complete.p99.toFixed(0)} ms`,
        floor: { name: `a ${SHAPE_NAME}, start to result (p50)`, value: floorTrips.p50 },
        atMost: 1.5,
      }),
      { section: section2, name: '202 latency p99', value: accept10.p99, unit: 'ms', detail: `p50 ${accept10.p50.toFixed(1)} ms`, target: { text: '< 60 ms', met: accept10.p99 < 60 } },
      ratioRow({
        section: section2,
        name: 'registrations completed per second',
        value: rate,
        unit: '/s',
        detail: `${runs.length} completed; 202 → succeeded p50 ${complete10.p50.toFixed(0)} ms, p99 ${complete10.p99.toFixed(0)} ms`,
        floor: { name: `${SHAPE_NAME}s completed per second, 10 at a time`, value: floorRate },
        atLeast: 0.7,
      }),
      {
        section: section2,
        name: 'lost, failed or charged twice',
        value: failed + problems.length,
        unit: '',
        detail: problems.length ? problems.join('; ') : `${sequentialRuns.length + runs.length} registrations, every one captured once`,
        target: { text: 'none', met: failed + problems.length === 0 },
      },
    ];
  } finally {
    watcher.stop();
  }
}

async function liveDnsEdit(stack: Stack, c: BenchCustomer, o: PathOptions): Promise<BenchRow[]> {
  const api = await sequential(
    (i) => ({
      url: `${stack.api.url}/api/v1/orgs/${c.orgId}/domains/${c.liveDomain}/records`,
      method: 'POST',
      headers: json(c.liveKey),
      body: JSON.stringify({ type: 'A', name: `api${i}`, content: '192.0.2.10', ttl: 300 }),
    }),
    o.dnsRecords,
    10,
  );
  const zone = `floor-${randomBase62(8).toLowerCase()}.com.`;
  const pdnsHeaders = { 'x-api-key': stack.pdns.apiKey, 'content-type': 'application/json' };
  const created = await fetch(`${stack.pdns.apiUrl}/api/v1/servers/localhost/zones`, {
    method: 'POST',
    headers: pdnsHeaders,
    body: JSON.stringify({ name: zone, kind: 'Native', nameservers: ['ns1.example.net.', 'ns2.example.net.'] }),
  });
  if (!created.ok) throw new Error(`PowerDNS zone: ${created.status} ${await created.text()}`);
  const direct = await sequential(
    (i) => ({
      url: `${stack.pdns.apiUrl}/api/v1/servers/localhost/zones/${zone}`,
      method: 'PATCH',
      headers: pdnsHeaders,
      body: JSON.stringify({ rrsets: [{ name: `direct${i}.${zone}`, type: 'A', ttl: 300, changetype: 'REPLACE', records: [{ content: '192.0.2.10', disabled: false }] }] }),
    }),
    o.dnsRecords,
    10,
  );
  const section = `Live DNS record create, ${o.dnsRecords} one at a time`;
  return [
    ratioRow({ section, name: 'POST …/records (live key, PowerDNS)', value: api.p50, unit: 'ms', detail: `p99 ${api.p99.toFixed(2)} ms`, floor: { name: 'PATCH straight to PowerDNS (p50)', value: direct.p50 }, atMost: 1.5 }),
  ];
}

/**
 * A zone file of another host's, imported into a live domain (PowerDNS) in one request: a dry run,
 * the import, the same file again (no change), and the export. One request each: the figure is how
 * long a customer moving a large zone waits, and how long the event loop and one connection are held.
 */
async function zoneImport(stack: Stack, c: BenchCustomer, o: PathOptions): Promise<BenchRow[]> {
  const domain = await activeDomain(stack.deps, { orgId: c.orgId, livemode: true, contactId: c.liveContactId });
  const { text, records } = otherProviderZoneFile(domain, o.zoneRecords);
  const url = `${stack.api.url}/api/v1/orgs/${c.orgId}/domains/${domain}/zone`;
  const timed = async (init: RequestInit): Promise<{ ms: number; body: string }> => {
    const started = performance.now();
    const res = await fetch(url, init);
    const body = await res.text();
    if (!res.ok) throw new Error(`${init.method ?? 'GET'} ${url}: ${res.status} ${body.slice(0, 500)}`);
    return { ms: performance.now() - started, body };
  };
  const post = (headers: Record<string, string> = {}) => timed({ method: 'POST', headers: { ...auth(c.liveKey), 'content-type': 'text/dns', ...headers }, body: text });
  const created = (body: string) => (JSON.parse(body) as { create: unknown[] }).create.length;
  const dry = await post({ 'dry-run': 'true' });
  const real = await post();
  const again = await post();
  const exported = await timed({ headers: auth(c.liveKey) });
  const section = `Zone file import, ${records} records (${(text.length / 1024).toFixed(0)} KB) from another host, live (PowerDNS), one request each`;
  const within = (ms: number, limit: number) => ({ text: `< ${limit / 1000} s`, met: ms < limit });
  return [
    { section, name: 'POST …/zone, Dry-Run', value: dry.ms, unit: 'ms', detail: `${created(dry.body)} to create`, target: within(dry.ms, 10_000) },
    { section, name: 'POST …/zone', value: real.ms, unit: 'ms', detail: `${created(real.body)} created`, target: within(real.ms, 30_000) },
    { section, name: 'POST …/zone, same file again', value: again.ms, unit: 'ms', detail: `${created(again.body)} created (nothing to do)`, target: within(again.ms, 10_000) },
    { section, name: 'GET …/zone', value: exported.ms, unit: 'ms', detail: `${(exported.body.length / 1024).toFixed(0)} KB` },
  ];
}

/** What the api's own metrics say of its heap (src/metrics), to tell the heap from the rest of its RSS. */
export async function heapDetail(stack: Stack): Promise<string> {
  const text = await (await fetch(stack.api.metricsUrl)).text();
  const mb = (metric: string) => Number(new RegExp(`^${metric} ([\\d.e+]+)$`, 'm').exec(text)?.[1] ?? NaN) / 2 ** 20;
  return `V8 heap used ${mb('nodejs_heap_size_used_bytes').toFixed(0)} MB of ${mb('nodejs_heap_size_total_bytes').toFixed(0)} MB; external ${mb('nodejs_external_memory_bytes').toFixed(0)} MB`;
}

export const PATH_PARTS = ['reads', 'layers', 'dns', 'zone', 'registrations'] as const;
export type PathPart = (typeof PATH_PARTS)[number];

export async function benchPaths(stack: Stack, o: PathOptions, parts: readonly PathPart[] = PATH_PARTS): Promise<BenchRow[]> {
  const c = await benchCustomer(stack.deps, 'paths');
  const rows: BenchRow[] = [];
  if (parts.includes('reads')) rows.push(...(await readPaths(stack, c, o)));
  if (parts.includes('layers')) rows.push(...(await layerCosts(stack, c, o)));
  if (parts.includes('dns')) rows.push(...(await liveDnsEdit(stack, c, o)));
  if (parts.includes('zone')) rows.push(...(await zoneImport(stack, c, o)));
  if (parts.includes('registrations')) rows.push(...(await registrations(stack, o)));
  const rss = stack.api.process.rssMb();
  rows.push({ section: 'Memory', name: 'api RSS after the bench', value: rss, unit: 'MB', detail: await heapDetail(stack), target: { text: '< 200 MB', met: rss < 200 } });
  return rows;
}
