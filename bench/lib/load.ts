/**
 * Load from the bench's own process (never the server's): autocannon for throughput at 10
 * connections, and one request at a time for latency.
 */
import autocannon from 'autocannon';
import { summarise } from './report.js';

export interface Throughput {
  requestsPerSecond: number;
  p50Ms: number;
  p99Ms: number;
  /** The highest of the rounds' p99s (takingTurns takes a run in rounds of a second). */
  worstRoundP99Ms: number;
  non2xx: number;
  errors: number;
}

export interface Request {
  url: string;
  method?: 'GET' | 'POST' | 'PATCH';
  headers?: Record<string, string>;
  body?: string;
}

/**
 * Throughput at `connections` connections for several requests, in rounds of one second each, the
 * requests taking turns (each round starting one further on) until each has had `seconds`. The
 * machine's drift over a run (a neighbour's load, a slower minute) then falls on every request alike,
 * so the ratios between them are the requests' own (docs/bench.md). Requests a second are counted
 * over all rounds; p50 and p99 are the rounds' medians, and the worst round's p99 is kept too.
 */
export async function takingTurns(requests: Request[], seconds: number, connections = 10): Promise<Throughput[]> {
  // A second of warm-up each (JIT, pools, caches), not counted.
  for (const request of requests) await autocannon({ ...request, connections, duration: 1 });
  const rounds = requests.map(() => [] as autocannon.Result[]);
  for (let round = 0; round < seconds; round += 1) {
    for (let turn = 0; turn < requests.length; turn += 1) {
      const index = (round + turn) % requests.length;
      rounds[index]!.push(await autocannon({ ...requests[index]!, connections, duration: 1 }));
    }
  }
  return rounds.map((results) => {
    const sum = (of: (result: autocannon.Result) => number) => results.reduce((total, result) => total + of(result), 0);
    return {
      requestsPerSecond: sum((result) => result.requests.total) / sum((result) => result.duration),
      p50Ms: summarise(results.map((result) => result.latency.p50)).p50,
      p99Ms: summarise(results.map((result) => result.latency.p99)).p50,
      worstRoundP99Ms: Math.max(...results.map((result) => result.latency.p99)),
      non2xx: sum((result) => result.non2xx),
      errors: sum((result) => result.errors),
    };
  });
}

/** Latency of `count` requests sent one at a time, after `warmup` uncounted ones; throws on a non-2xx. */
export async function sequential(request: Request | ((i: number) => Request), count: number, warmup = 50): Promise<ReturnType<typeof summarise>> {
  const [summary] = await interleaved([typeof request === 'function' ? request : () => request], count, warmup);
  return summary!;
}

/**
 * `sequential` for several variants at once, one request to each in turn: JIT warm-up and the
 * machine's drift fall on every variant alike, so the differences between them are the variants'.
 */
export async function interleaved(variants: ((i: number) => Request)[], count: number, warmup = 50): Promise<ReturnType<typeof summarise>[]> {
  const samples: number[][] = variants.map(() => []);
  for (let i = 0; i < warmup + count; i += 1) {
    for (const [v, variant] of variants.entries()) {
      const { url, method, headers, body } = variant(i);
      const started = performance.now();
      const res = await fetch(url, { method: method ?? 'GET', ...(headers ? { headers } : {}), ...(body ? { body } : {}) });
      await res.arrayBuffer();
      if (!res.ok) throw new Error(`${method ?? 'GET'} ${url}: ${res.status}`);
      if (i >= warmup) samples[v]!.push(performance.now() - started);
    }
  }
  return samples.map(summarise);
}
