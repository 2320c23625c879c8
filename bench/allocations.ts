/**
 * `node --experimental-websocket --import tsx bench/allocations.ts [SECONDS] [N]`, beside a bench run
 * started with `BENCH_NODE_FLAGS=--inspect=0`: waits for the bench's api to go from idle to busy (its
 * first load, which under `--only reads` is the read rows taking turns with the floors), samples what
 * it allocates for SECONDS (3) through its inspector, garbage included, and prints the N (30) frames
 * that allocated most, by their own allocations and with what they call. `--heap-prof` keeps only
 * what is still alive when the process exits, which misses exactly the per-request garbage that
 * makes young-generation collections (docs/bench.md).
 */
import { execFileSync } from 'node:child_process';
import { readFileSync, readdirSync, statSync } from 'node:fs';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { REPO_ROOT } from '../test/support/processes.js';
import { cpuMsOf } from './lib/processes.js';

interface SamplingNode {
  callFrame: { functionName: string; url: string; lineNumber: number };
  selfSize: number;
  children: SamplingNode[];
}

const [seconds = '3', count = '30'] = process.argv.slice(2);
const LOGS = path.join(REPO_ROOT, '.data/bench/logs');

function apiPid(): number | undefined {
  try {
    return Number(execFileSync('pgrep', ['-f', 'dist/src/main[.]js --role api'], { encoding: 'utf8' }).split('\n')[0]);
  } catch {
    return undefined; // not started yet
  }
}

/** Half a second at a time: busy once it has been idle for three seconds and then uses over 60 % of a core. */
async function waitUntilBusy(): Promise<void> {
  let idleSteps = 0;
  for (;;) {
    const pid = apiPid();
    if (!pid) {
      await sleep(500);
      continue;
    }
    const before = cpuMsOf(pid);
    await sleep(500);
    const usedMs = cpuMsOf(pid) - before;
    if (usedMs < 50) idleSteps += 1;
    if (idleSteps >= 6 && usedMs > 300) return;
  }
}

function inspectorUrl(): string {
  const newest = readdirSync(LOGS).filter((name) => name.endsWith('-api.log')).map((name) => path.join(LOGS, name)).sort((a, b) => statSync(b).mtimeMs - statSync(a).mtimeMs)[0];
  const url = newest && /Debugger listening on (ws:\/\/\S+)/.exec(readFileSync(newest, 'utf8'))?.[1];
  if (!url) throw new Error('the api does not listen for an inspector: run the bench with BENCH_NODE_FLAGS=--inspect=0');
  return url;
}

async function sampleAllocations(url: string, ms: number): Promise<SamplingNode> {
  const socket = new WebSocket(url);
  await new Promise((resolve, reject) => {
    socket.addEventListener('open', resolve, { once: true });
    socket.addEventListener('error', reject, { once: true });
  });
  let lastId = 0;
  const answers = new Map<number, (result: unknown) => void>();
  socket.addEventListener('message', (event) => {
    const message = JSON.parse(String(event.data)) as { id?: number; result?: unknown };
    if (message.id !== undefined) answers.get(message.id)?.(message.result);
  });
  const call = (method: string, params: object = {}) =>
    new Promise<unknown>((resolve) => {
      lastId += 1;
      answers.set(lastId, resolve);
      socket.send(JSON.stringify({ id: lastId, method, params }));
    });
  await call('HeapProfiler.startSampling', { samplingInterval: 4096, includeObjectsCollectedByMajorGC: true, includeObjectsCollectedByMinorGC: true });
  await sleep(ms);
  const { profile } = (await call('HeapProfiler.stopSampling')) as { profile: { head: SamplingNode } };
  socket.close();
  return profile.head;
}

function frameName({ functionName, url, lineNumber }: SamplingNode['callFrame']): string {
  const where = url.replace(/^file:\/\//, '').replace(/^.*node_modules\//, '').replace(`${REPO_ROOT}/`, '');
  return `${functionName || '(anonymous)'} ${where}:${lineNumber + 1}`;
}

await waitUntilBusy();
await sleep(1_000);
const head = await sampleAllocations(inspectorUrl(), Number(seconds) * 1_000);
const own = new Map<string, number>();
const withCallees = new Map<string, number>();
let total = 0;
const walk = (node: SamplingNode, above: Set<string>): void => {
  const name = frameName(node.callFrame);
  own.set(name, (own.get(name) ?? 0) + node.selfSize);
  total += node.selfSize;
  const stack = new Set(above).add(name);
  for (const frame of stack) withCallees.set(frame, (withCallees.get(frame) ?? 0) + node.selfSize);
  for (const child of node.children) walk(child, stack);
};
walk(head, new Set());
const top = (map: Map<string, number>) =>
  [...map].sort((a, b) => b[1] - a[1]).slice(0, Number(count)).map(([name, bytes]) => `${((bytes / total) * 100).toFixed(1).padStart(5)} %  ${name}`);
console.log(`${(total / 1e6).toFixed(0)} MB allocated in ${seconds} s\n\nby frame, own allocations:\n${top(own).join('\n')}\n\nby frame, with what it calls:\n${top(withCallees).join('\n')}`);
