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
  non2xx: number;
  errors: number;
}

export interface Request {
  url: string;
  method?: 'GET' | 'POST' | 'PATCH';
  headers?: Record<string, string>;
  body?: string;
}

export async function throughput(request: Request, seconds: number, connections = 10): Promise<Throughput> {
  // A second of warm-up (JIT, pools, caches) that is not counted.
  await autocannon({ ...request, connections, duration: 1 });
  const result = await autocannon({ ...request, connections, duration: seconds });
  return { requestsPerSecond: result.requests.average, p50Ms: result.latency.p50, p99Ms: result.latency.p99, non2xx: result.non2xx, errors: result.errors };
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
