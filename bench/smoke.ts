/**
 * `npm run bench:smoke`: runs `npm run bench -- --scenario all,scale,neighbours` from this checkout with
 * small sizes, as CI does after the tests, and fails when the bench would fail a developer: it does not
 * build or start, a section is missing, a figure is not a number, a registration was lost or charged
 * twice, a webhook went undelivered, the plot is not drawn, or something it started is still running
 * after it exits. The figures themselves (the neighbours' 5xx among them) are not judged: at these
 * sizes they mean nothing (docs/bench.md).
 */
import { spawn } from 'node:child_process';
import { mkdtemp, readFile, readdir, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { REPO_ROOT } from '../test/support/processes.js';
import type { BenchRow } from './lib/report.js';

const SMALL_SIZES: Record<string, string> = {
  BENCH_SECONDS: '1',
  BENCH_REQUESTS: '20',
  BENCH_REGISTRATIONS: '5',
  BENCH_REGISTRATION_WARMUP: '5',
  BENCH_CONCURRENT_SECONDS: '2',
  BENCH_DNS_RECORDS: '5',
  BENCH_ZONE_RECORDS: '100',
  BENCH_MIXED_SECONDS: '3',
  BENCH_MIXED_CLIENTS: '2',
  BENCH_MAIL_LATENCY_RUNS: '2',
  BENCH_MAIL_MESSAGES: '10',
  BENCH_WEBHOOK_EVENTS: '10',
  BENCH_SCALE_ZONE_SIZES: '200',
  BENCH_SCALE_ORG_SIZES: '200',
  BENCH_SCALE_LIFECYCLE_MAX: '200',
  BENCH_SCALE_WEBHOOK_ENDPOINTS: '5',
  BENCH_SCALE_WEBHOOK_EVENTS: '20',
  BENCH_SCALE_WEBHOOK_BURST_EVENTS: '40',
  BENCH_SCALE_WEBHOOK_IDLE_EVENTS: '5',
  BENCH_SCALE_BACKLOG_EVENTS: '100',
  BENCH_NEIGHBOURS_QUIET_SECONDS: '2',
  BENCH_NEIGHBOURS_NOISY_SECONDS: '3',
  BENCH_NEIGHBOURS_JUNK_BYTES: '65536',
  BENCH_NEIGHBOURS_IMPORT_RECORDS: '100,200',
  BENCH_NEIGHBOURS_EXPORT_RECORDS: '100',
  BENCH_NEIGHBOURS_ACME_REGISTRATIONS: '3',
};

/** The start of every section's title `--scenario all,scale,neighbours` prints. */
const SECTIONS = [
  'Reads at 10 connections',
  'One request at a time',
  'What each layer adds to one POST',
  'Live DNS record create',
  'Zone file import',
  'Test-mode registration, one at a time',
  'Test-mode registrations, 10 at a time',
  'Memory',
  'Mixed load, 2 clients for 3 s, one worker process',
  'Mixed load, 2 clients for 3 s, two worker processes',
  'Webhooks: ',
  'In-process checks',
  'Scale: one live zone',
  'Scale: one organisation',
  'Scale: lifecycle workflows idle',
  'Scale: 5 webhook endpoints',
  'Noisy neighbours',
];

/** Marks this run's processes: the bench passes BENCH_RUN on to all it starts (bench/lib/processes.ts). */
const RUN_ID = `smoke-${process.pid}-${Date.now()}`;

/** This run's processes (the bench and all it started), by what their environment holds, not by ancestry: an orphan's parent is init. */
async function runProcesses(): Promise<Map<number, string>> {
  const found = new Map<number, string>();
  for (const entry of await readdir('/proc')) {
    const pid = Number(entry);
    if (!Number.isInteger(pid)) continue;
    try {
      if (!(await readFile(`/proc/${pid}/environ`, 'utf8')).split('\0').includes(`BENCH_RUN=${RUN_ID}`)) continue;
      found.set(pid, (await readFile(`/proc/${pid}/cmdline`, 'utf8')).split('\0').join(' ').trim());
    } catch {
      // Ended while being read, or not ours to read.
    }
  }
  return found;
}

const listed = (processes: Map<number, string>) => [...processes].map(([pid, command]) => `${pid} ${command}`);

/** A full run at these sizes takes about two minutes; one that has not exited by then is stuck. */
const TIMEOUT_MS = Number(process.env.BENCH_SMOKE_TIMEOUT_S ?? 600) * 1_000;

interface BenchRun {
  status: number | null;
  output: string;
  /** What was still running when the bench was given up on, before its process group was stopped. */
  stuck?: string[];
}

/** The bench in a process group of its own, so that a stuck one can be stopped with all it started. */
function runBench(jsonFile: string, svgFile: string): Promise<BenchRun> {
  return new Promise((resolve, reject) => {
    const child = spawn('npx', ['tsx', 'bench/index.ts', '--scenario', 'all,scale,neighbours', '--json', jsonFile], {
      cwd: REPO_ROOT,
      env: { ...process.env, ...SMALL_SIZES, BENCH_SCALE_SVG: svgFile, BENCH_RUN: RUN_ID },
      stdio: ['ignore', 'pipe', 'pipe'],
      detached: true,
    });
    let output = '';
    let stuck: string[] | undefined;
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
    const timer = setTimeout(() => {
      void runProcesses().then((now) => {
        stuck = listed(now);
        killQuietly(-child.pid!);
      });
    }, TIMEOUT_MS);
    child.on('error', reject);
    child.on('close', (status) => {
      clearTimeout(timer);
      resolve({ status: stuck ? null : status, output, ...(stuck ? { stuck } : {}) });
    });
  });
}

/** What went wrong with the rows, if anything. */
function rowProblems(rows: BenchRow[]): string[] {
  const problems: string[] = [];
  for (const section of SECTIONS) if (!rows.some((row) => row.section.startsWith(section))) problems.push(`no section "${section}…"`);
  for (const row of rows) if (!Number.isFinite(row.value)) problems.push(`${row.section} / ${row.name}: ${row.value}`);
  // Promises the bench checks at any size: each registration or change captured once, each webhook delivered.
  for (const [name, kept] of [
    ['lost, failed or charged twice', (row: BenchRow) => row.value === 0],
    ['delivered', (row: BenchRow) => row.target?.met === true],
  ] as const) {
    const checked = rows.filter((row) => row.name === name);
    if (checked.length === 0) problems.push(`no "${name}" row`);
    for (const row of checked) if (!kept(row)) problems.push(`${row.section} / ${name}: ${row.value} ${row.unit} (${row.detail ?? ''})`);
  }
  return problems;
}

function killQuietly(pid: number): void {
  try {
    process.kill(pid, 'SIGKILL');
  } catch {
    // Already gone.
  }
}

/** The bench's processes still running: none once it has stopped them, so this only waits for exits already under way. */
async function leftRunning(): Promise<Map<number, string>> {
  const deadline = Date.now() + 5_000;
  for (;;) {
    const left = await runProcesses();
    if (left.size === 0 || Date.now() > deadline) return left;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

async function main(): Promise<void> {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'bench-smoke-'));
  const jsonFile = path.join(dir, 'rows.json');
  const svgFile = path.join(dir, 'scale.svg');
  try {
    const started = Date.now();
    const { status, output, stuck } = await runBench(jsonFile, svgFile);
    const problems: string[] = [];
    let rows: BenchRow[] = [];
    let svg = '';
    if (stuck) problems.push(`npm run bench had not exited after ${TIMEOUT_MS / 1000} s; running then: ${stuck.join('; ') || 'nothing else'}`);
    else if (status !== 0) problems.push(`npm run bench exited with ${status}`);
    else {
      rows = (JSON.parse(await readFile(jsonFile, 'utf8')) as { rows: BenchRow[] }).rows;
      problems.push(...rowProblems(rows));
      svg = await readFile(svgFile, 'utf8').catch(() => '');
      if (!/^(<\?xml[^>]*>\s*)?<svg[\s>]/.test(svg)) problems.push(`no plot drawn to ${svgFile}`);
    }
    const left = await leftRunning();
    for (const each of listed(left)) problems.push(`still running after the bench: ${each}`);
    // Reported, then stopped: CI's machine is left as the bench found it.
    for (const pid of left.keys()) killQuietly(pid);
    if (problems.length > 0) {
      console.error(output);
      console.error(`bench smoke failed:\n- ${problems.join('\n- ')}`);
      process.exitCode = 1;
      return;
    }
    console.log(`bench smoke: ${rows.length} rows in ${SECTIONS.length} sections, a plot of ${svg.length} bytes, in ${((Date.now() - started) / 1000).toFixed(0)} s; nothing it started is still running`);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

main().catch((err: unknown) => {
  console.error(err);
  process.exitCode = 1;
});
