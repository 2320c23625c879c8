/** Timing and process figures shared by the scale rows (docs/bench.md, Scale). */
import { readFileSync, writeFileSync } from 'node:fs';
import type { Queryable } from '../../src/db/pool.js';
import { encodeCursor } from '../../src/http/pagination.js';
import { memoryMbOf } from '../lib/processes.js';

export interface CurvePoint<Op extends string = string> {
  operation: Op;
  size: number;
  ms: number;
  detail?: string;
}

/**
 * The cursor of a page "90 % deep" into a list of `rows` rows (newest first): after the row at 90 %,
 * or earlier where a full page would not follow, so every size reads as many rows as one page's worth
 * does (there it is the first page: a cursor after every row).
 */
export async function deepCursor(db: Queryable, props: { table: 'domains' | 'dns_records'; where: string; params: unknown[]; rows: number; idPrefix: string }): Promise<string> {
  const offset = Math.min(Math.floor(props.rows * 0.9), props.rows - 101);
  const { rows: [deep] } =
    offset < 0
      ? { rows: [] }
      : await db.query<{ createdAt: Date; id: string }>(
          `SELECT created_at AS "createdAt", id FROM ${props.table} WHERE ${props.where} ORDER BY created_at DESC, id DESC OFFSET ${offset} LIMIT 1`,
          props.params,
        );
  return encodeCursor(deep ?? { createdAt: new Date(), id: `${props.idPrefix}_zzzzzzzzzzzzzzzzzzzzzz` });
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
  return memoryMbOf(pid, 'VmRSS');
}

/**
 * How far a process's RSS rose above where it stood while `work` ran, in MB: Linux's high-water mark,
 * reset first through /proc/PID/clear_refs (needs the process to be ours), so a sub-second peak
 * that a sampler would miss still counts.
 */
export async function rssRiseOver(pid: number, work: () => Promise<unknown>): Promise<number> {
  writeFileSync(`/proc/${pid}/clear_refs`, '5');
  // The mark just reset is the baseline: RSS read before the reset could stand above it (a collection
  // between the two), which printed a rise of "+-0 MB".
  const before = highWaterMbOf(pid);
  await work();
  return highWaterMbOf(pid) - before;
}

function highWaterMbOf(pid: number): number {
  return memoryMbOf(pid, 'VmHWM');
}

/** Samples a process's RSS every 200 ms until stopped; the peak. */
export function rssPeak(pid: number): { stop(): number } {
  let peak = rssMbOf(pid);
  const timer = setInterval(() => (peak = Math.max(peak, rssMbOf(pid))), 200);
  return { stop: () => (clearInterval(timer), Math.max(peak, rssMbOf(pid))) };
}
