/**
 * The command line's start, as docs/cli.md says to run it: the bin itself (on the PATH after `npm link`;
 * here by its path, which is the same file), against `node -e 0`, the least a Node process costs.
 * `npx` adds npm's own start each time, shown beside them.
 */
import { execFile } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';
import { summarise, type BenchRow } from './lib/report.js';

const run = promisify(execFile);
const REPO_ROOT = path.resolve(import.meta.dirname, '..');
const BIN = path.join(REPO_ROOT, 'cli/bin/domain-service.js');

async function timed(file: string, args: string[], env: Record<string, string>, runs: number): Promise<{ p50: number; p99: number }> {
  const samples: number[] = [];
  for (let i = 0; i < runs; i += 1) {
    const started = performance.now();
    await run(file, args, { cwd: REPO_ROOT, env: { ...process.env, ...env } });
    samples.push(performance.now() - started);
  }
  return summarise(samples);
}

export async function benchCliStart(props: { apiUrl: string; testKey: string; runs: number }): Promise<BenchRow[]> {
  const section = 'The command line\'s start (p50 of sequential runs; targets from docs/cli.md)';
  const env = { DOMAIN_SERVICE_API_URL: props.apiUrl, DOMAIN_SERVICE_API_KEY: props.testKey, NO_COLOR: '1' };
  // Once first: the launcher builds its bundle when the source is newer than it.
  await run(process.execPath, [BIN, '--version'], { cwd: REPO_ROOT });
  const floor = await timed(process.execPath, ['-e', '0'], env, props.runs);
  const version = await timed(process.execPath, [BIN, '--version'], env, props.runs);
  const check = await timed(process.execPath, [BIN, '--test', 'domains', 'check', 'bench-cli-start.com'], env, props.runs);
  const viaNpx = await timed('npx', ['domain-service', '--version'], env, Math.max(3, Math.floor(props.runs / 4)));
  const floorRow = { name: 'node -e 0', value: floor.p50 };
  const row = (name: string, measured: { p50: number; p99: number }, targetMs?: number): BenchRow => ({
    section,
    name,
    value: measured.p50,
    unit: 'ms',
    detail: `p99 ${measured.p99.toFixed(0)} ms`,
    floor: floorRow,
    ratio: measured.p50 / floor.p50,
    ...(targetMs ? { target: { text: `< ${targetMs} ms`, met: measured.p50 < targetMs } } : {}),
  });
  return [
    { section, name: 'node -e 0', value: floor.p50, unit: 'ms', detail: `p99 ${floor.p99.toFixed(0)} ms` },
    row('domain-service --version', version, 300),
    row('domain-service --test domains check (one request to the api)', check, 500),
    row('npx domain-service --version (npm\'s start included)', viaNpx),
  ];
}
