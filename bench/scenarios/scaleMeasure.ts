/** Timing and process figures shared by the scale rows (docs/bench.md, Scale). */
import { readFileSync } from 'node:fs';

export interface CurvePoint<Op extends string = string> {
  operation: Op;
  size: number;
  ms: number;
  detail?: string;
}

/**
 * The offset of the row a page "90 % deep" starts after, kept low enough that a full page follows,
 * so every size reads as many rows as one page's worth does (there it is the first page). Below 0:
 * start from the top.
 */
export function deepOffset(rows: number, page = 100): number {
  return Math.min(Math.floor(rows * 0.9), rows - page - 1);
}

/** A request that must succeed; its time in ms and body. */
export async function timedFetch(url: string, init: RequestInit = {}): Promise<{ ms: number; body: string }> {
  const started = performance.now();
  const res = await fetch(url, init);
  const body = await res.text();
  if (!res.ok) throw new Error(`${init.method ?? 'GET'} ${url}: ${res.status} ${body.slice(0, 500)}`);
  return { ms: performance.now() - started, body };
}

/** The median of `count` runs, after a few uncounted (JIT, caches). */
export async function medianMs(count: number, run: () => Promise<{ ms: number }>): Promise<number> {
  for (let i = 0; i < 5; i += 1) await run();
  const samples: number[] = [];
  for (let i = 0; i < count; i += 1) samples.push((await run()).ms);
  samples.sort((a, b) => a - b);
  return samples[Math.floor(samples.length / 2)]!;
}

/** CPU seconds (user + system) a process has used, from /proc (Linux). */
export function cpuSeconds(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
  return (Number(fields[11]) + Number(fields[12])) / 100;
}

export function rssMbOf(pid: number): number {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  return Number(/VmRSS:\s+(\d+) kB/.exec(status)?.[1] ?? 0) / 1024;
}

/** Samples a process's RSS every 200 ms until stopped; the peak. */
export function rssPeak(pid: number): { stop(): number } {
  let peak = rssMbOf(pid);
  const timer = setInterval(() => (peak = Math.max(peak, rssMbOf(pid))), 200);
  return { stop: () => (clearInterval(timer), Math.max(peak, rssMbOf(pid))) };
}
