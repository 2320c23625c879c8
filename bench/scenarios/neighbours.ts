/**
 * `npm run bench -- --scenario neighbours` (docs/bench.md, Noisy neighbours): a free organisation doing
 * the worst it may (bench/servers/noisyNeighbour.ts) while another goes about its work
 * (bench/scenarios/bystander.ts), on the api and worker restarted with a development deployment's
 * limits. The bystander's work is timed first on the quiet service, then beside the noisy one.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { USER_CEILING_FACTOR } from '../../src/rateLimit/groups.js';
import { Answers, type AnswersSummary } from '../lib/answers.js';
import { benchCustomer } from '../lib/customer.js';
import { startCompiled, waitForLog, type BenchProcess } from '../lib/processes.js';
import { ratioRow, summarise, type BenchRow } from '../lib/report.js';
import { asDeployed, type Stack } from '../lib/stack.js';
import type { NoisyAttack, NoisyPlan } from '../servers/noisyNeighbour.js';
import { runBystander, unexpectedAnswers, type BystanderAnswers } from './bystander.js';
import { noisyOrganisation, silentReceiver, type NoisySetup } from './neighboursSetup.js';
import { heapDetail } from './paths.js';

export interface NeighbourOptions {
  quietSeconds: number;
  noisySeconds: number;
  /** Each junk zone file's size: the import's body limit. */
  junkBytes: number;
  /** The maximal imports' sizes, each loop replacing its zone with them in turn. */
  importRecords: number[];
  /** Records of the zone exported slowly: more than one export batch, so each export takes a slot. */
  exportRecords: number;
  /** ACME-DNS registrations to make, unless the api refuses more first. */
  acmeRegistrations: number;
}

/** The api offers ACME-DNS only with a zone to hand names out in; the stack's PowerDNS serves it. */
const ACME_DNS = { ACME_DNS_ZONE: 'acme-dns.bench.test', ACME_DNS_NAMESERVERS: 'ns1.example.net' };
/** Members of the noisy organisation, each with as many keys as its user's ceiling is worth. */
const MEMBERS = 3;
/** The bystander starts a cycle of its requests this often: about 28 requests a second, 16 of them writes. */
const CYCLE_MS = 250;
const WARMUP_SECONDS = 3;
const ATTACKS = { junk: 10, importLoops: 2, batchLoops: 4, batchSize: 100, streams: 15, exports: 4, exportHoldMs: 10_000, acmeDns: 8 };
/** Refusals a free organisation is expected to meet as it hits its limits; 5xx are counted apart. */
const EXPECTED_REFUSALS = new Set([409, 413, 422, 429]);

/** The highest RSS each process reached while watched, sampled so that one that dies keeps its last figure. */
function peakWatch(processes: BenchProcess[]): { stop(): number[] } {
  const peaks = processes.map(() => 0);
  const read = () =>
    processes.forEach((proc, i) => {
      try {
        peaks[i] = Math.max(peaks[i]!, proc.peakRssMb());
      } catch {
        // Exited: its last reading stands.
      }
    });
  read();
  const timer = setInterval(read, 200);
  return { stop: () => (clearInterval(timer), read(), peaks) };
}

async function noisyEvents(stack: Stack, orgId: string): Promise<{ events: number; waiting: number; attempts: number }> {
  const { rows: [events] } = await stack.deps.db.query<{ events: number; waiting: number }>(
    'SELECT count(*)::int AS events, (count(*) FILTER (WHERE dispatched_at IS NULL))::int AS waiting FROM events WHERE org_id = $1',
    [orgId],
  );
  const { rows: [deliveries] } = await stack.deps.db.query<{ attempts: number }>(
    'SELECT count(*)::int AS attempts FROM webhook_deliveries d JOIN webhook_endpoints e ON e.id = d.endpoint_id WHERE e.org_id = $1',
    [orgId],
  );
  return { ...events!, attempts: deliveries!.attempts };
}

function planOf(stack: Stack, setup: NoisySetup, o: NeighbourOptions): NoisyPlan {
  return {
    apiUrl: stack.api.url,
    orgId: setup.orgId,
    seconds: o.noisySeconds,
    members: setup.members,
    // 0 bytes: no junk, to see what the other attacks do when the parser does not take the api first.
    junk: { domain: setup.junkDomain, bytes: o.junkBytes, inFlight: o.junkBytes > 0 ? ATTACKS.junk : 0 },
    imports: { domains: setup.importDomains, records: o.importRecords },
    batches: { domains: setup.batchDomains, size: ATTACKS.batchSize },
    streams: ATTACKS.streams,
    exports: { domain: setup.exportDomain, inFlight: ATTACKS.exports, holdMs: ATTACKS.exportHoldMs },
    acmeDns: { credentials: setup.acmeDns, inFlight: ATTACKS.acmeDns },
  };
}

interface Measured {
  quiet: BystanderAnswers;
  noisy: BystanderAnswers;
  attacks: Record<NoisyAttack, AnswersSummary>;
  peaks: { quietApi: number; quietWorker: number; api: number; worker: number };
  apiExit: string | undefined;
  load: { quiet: number; noisy: number };
  outbox: Awaited<ReturnType<typeof noisyEvents>>;
  heap: string;
}

export async function benchNeighbours(stack: Stack, o: NeighbourOptions): Promise<BenchRow[]> {
  await stack.restart(asDeployed(stack.env, ACME_DNS));
  const receiver = await silentReceiver();
  const dir = await mkdtemp(path.join(os.tmpdir(), 'bench-neighbours-'));
  let noisy: BenchProcess | undefined;
  try {
    const bystander = await benchCustomer(stack.deps, 'bystander');
    const setup = await noisyOrganisation(stack, {
      members: MEMBERS,
      keysPerMember: USER_CEILING_FACTOR,
      receiverUrl: receiver.url,
      exportRecords: o.exportRecords,
      acmeRegistrations: o.acmeRegistrations,
      importLoops: ATTACKS.importLoops,
      batchLoops: ATTACKS.batchLoops,
    });
    await runBystander(stack, bystander, { seconds: WARMUP_SECONDS, cycleMs: CYCLE_MS });
    const quiet = await runBystander(stack, bystander, { seconds: o.quietSeconds, cycleMs: CYCLE_MS });
    const quietLoad = os.loadavg()[0]!;
    const [quietApi, quietWorker] = [stack.api.process.peakRssMb(), stack.workers[0]!.peakRssMb()];

    const planFile = path.join(dir, 'plan.json');
    await writeFile(planFile, JSON.stringify(planOf(stack, setup, o)));
    noisy = startCompiled({ name: 'noisy neighbour', script: 'dist/bench/servers/noisyNeighbour.js', env: { BENCH_NOISY_PLAN: planFile }, logFile: stack.logFile('noisy-neighbour') });
    await waitForLog(noisy, /"noisy":"ready"/);
    const watch = peakWatch([stack.api.process, stack.workers[0]!]);
    const noisyRun = await runBystander(stack, bystander, { seconds: o.noisySeconds, cycleMs: CYCLE_MS });
    const noisyLoad = os.loadavg()[0]!;
    const done = JSON.parse((await waitForLog(noisy, /^\{"noisy":"done".*\}$/m, 120_000))[0]) as { answers: Record<NoisyAttack, AnswersSummary> };
    const [api, worker] = watch.stop();
    const { exitCode, signalCode } = stack.api.process.child;
    return neighbourRows(o, setup, {
      quiet,
      noisy: noisyRun,
      attacks: done.answers,
      peaks: { quietApi, quietWorker, api: api!, worker: worker! },
      apiExit: exitCode !== null ? `exit ${exitCode}` : (signalCode ?? undefined),
      load: { quiet: quietLoad, noisy: noisyLoad },
      outbox: await noisyEvents(stack, setup.orgId),
      heap: await heapDetail(stack).catch(() => 'the api did not answer /metrics'),
    });
  } finally {
    await noisy?.stop();
    await receiver.close();
    await rm(dir, { recursive: true, force: true });
    // The api and worker stay as the scenario ran them (it runs last, bench/index.ts), unless the noisy
    // organisation brought the api down: then the bench ends on one as it started.
    const { exitCode, signalCode } = stack.api.process.child;
    if (exitCode !== null || signalCode !== null) await stack.restart(stack.env);
  }
}

const serverErrorsOf = (answers: Answers) => Object.entries(answers.refusals).flatMap(([refusal, n]) => (Number(refusal.split(' ')[0]) >= 500 ? [`${refusal} ×${n}`] : []));
const ms = (value: number) => `${value.toFixed(value < 10 ? 1 : 0)} ms`;
const records = (n: number) => n.toLocaleString('en-GB');

function neighbourRows(o: NeighbourOptions, setup: NoisySetup, m: Measured): BenchRow[] {
  const section = `Noisy neighbours: a free organisation's worst beside another's work, ${o.quietSeconds} s quiet then ${o.noisySeconds} s noisy, a development deployment's limits`;
  const [quietAll, noisyAll] = [Answers.all(Object.values(m.quiet)), Answers.all(Object.values(m.noisy))];
  const [q, n] = [summarise(quietAll.ms), summarise(noisyAll.ms)];
  const rows: BenchRow[] = [
    ratioRow({
      section,
      name: 'bystander p99, noisy',
      value: n.p99,
      unit: 'ms',
      floor: { name: 'the same work on the quiet service, p99', value: q.p99 },
      atMost: 1.5,
      detail: `slowest ${ms(n.max)} (quiet ${ms(q.max)}); ${n.count} requests (quiet ${q.count}); load average ${m.load.quiet.toFixed(1)} after the quiet part, ${m.load.noisy.toFixed(1)} after the noisy one`,
    }),
    ratioRow({ section, name: 'bystander p50, noisy', value: n.p50, unit: 'ms', floor: { name: 'the same work on the quiet service, p50', value: q.p50 } }),
  ];
  for (const [kind, answers] of Object.entries(m.noisy)) {
    const [kq, kn] = [summarise(m.quiet[kind as keyof BystanderAnswers].ms), summarise(answers.ms)];
    rows.push(ratioRow({ section, name: `  ${kind} p99`, value: kn.p99, unit: 'ms', floor: { name: 'quiet p99', value: kq.p99 }, detail: `p50 ${ms(kn.p50)} (quiet ${ms(kq.p50)})` }));
  }
  const unexpected = [...unexpectedAnswers(m.quiet).map((text) => `quiet: ${text}`), ...unexpectedAnswers(m.noisy).map((text) => `noisy: ${text}`)];
  rows.push({ section, name: 'bystander answers other than success', value: unexpected.length, unit: '', detail: unexpected.slice(0, 6).join('; ') || 'none' });
  rows.push({
    section,
    name: 'api peak RSS, noisy',
    value: m.peaks.api,
    unit: 'MB',
    detail: `quiet ${m.peaks.quietApi.toFixed(0)} MB; worker ${m.peaks.worker.toFixed(0)} MB (quiet ${m.peaks.quietWorker.toFixed(0)} MB); ${m.heap}; ${m.apiExit ? `the api DIED (${m.apiExit})` : 'the api kept running'}`,
    target: { text: '< 400 MB', met: m.peaks.api < 400 && !m.apiExit },
  });
  const attacks = Object.entries(m.attacks).map(([attack, summary]) => [attack as NoisyAttack, Answers.from(summary), summary] as const);
  const bystanderAll = Answers.all([quietAll, noisyAll]);
  const noisyAnswers = Answers.all(attacks.map(([, answers]) => answers));
  const failures = bystanderAll.serverErrors + bystanderAll.noAnswer + noisyAnswers.serverErrors + noisyAnswers.noAnswer;
  rows.push({
    section,
    name: '5xx or no answer, both organisations',
    value: failures,
    unit: '',
    detail: [
      `bystander ${bystanderAll.serverErrors} 5xx, ${bystanderAll.noAnswer} unanswered; noisy ${noisyAnswers.serverErrors} 5xx, ${noisyAnswers.noAnswer} unanswered`,
      ...attacks.flatMap(([attack, answers]) => serverErrorsOf(answers).map((text) => `${text} (${attack})`)),
      ...serverErrorsOf(bystanderAll).map((text) => `${text} (bystander)`),
    ].join('; '),
    target: { text: 'none', met: failures === 0 },
  });
  const names: Record<NoisyAttack, string> = {
    junk: 'junk zone files',
    imports: 'maximal zone imports',
    batches: 'maximal batches',
    streams: 'event streams',
    exports: 'large exports read slowly',
    acmeDns: 'ACME-DNS updates',
  };
  const about: Record<NoisyAttack, string> = {
    junk: o.junkBytes > 0 ? `junk zone files of ${(o.junkBytes / 2 ** 20).toFixed(o.junkBytes < 2 ** 20 ? 2 : 0)} MiB, ${ATTACKS.junk} at once` : 'no junk zone files (BENCH_NEIGHBOURS_JUNK_BYTES=0)',
    imports: `imports replacing a zone with ${o.importRecords.map(records).join(' then ')} records, ${ATTACKS.importLoops} at once`,
    batches: `batches of ${ATTACKS.batchSize} creates then ${ATTACKS.batchSize} deletes, ${ATTACKS.batchLoops} at once`,
    streams: `event streams, ${ATTACKS.streams} held open (half read slowly)`,
    exports: `exports of a ${records(o.exportRecords)}-record zone, ${ATTACKS.exports} at once, each read slowly for ${ATTACKS.exportHoldMs / 1_000} s`,
    acmeDns: `ACME-DNS updates over ${setup.acmeDns.length} live registrations, ${ATTACKS.acmeDns} at once`,
  };
  for (const [attack, answers, summary] of attacks) {
    const odd = Object.keys(answers.byStatus).map(Number).filter((status) => status >= 300 && status < 500 && !EXPECTED_REFUSALS.has(status));
    const timing = summary.ms.count ? `; answered in p50 ${ms(summary.ms.p50)}, slowest ${ms(summary.ms.max)}` : '';
    rows.push({
      section,
      name: `noisy: ${names[attack]}`,
      value: answers.answered,
      unit: 'answers',
      detail: `${about[attack]}: ${answers.describe()}${timing}${odd.length ? `; UNEXPECTED ${odd.join(', ')}` : ''}`,
    });
  }
  rows.push({
    section,
    name: 'noisy: events emitted',
    value: m.outbox.events,
    unit: '',
    detail: `${m.outbox.waiting} not yet handed to delivery at the end; ${m.outbox.attempts} delivery attempts to its ${setup.endpoints} endpoints that never answer`,
  });
  return rows;
}
