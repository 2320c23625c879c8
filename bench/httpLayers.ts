import { z } from 'zod';
import type { AppDeps } from '../src/deps.js';
import { createApp } from '../src/app.js';
import { listen } from '../src/http/listen.js';
import { defineRoute } from '../src/http/route.js';
import type { RouterLayers } from '../src/http/router.js';

export interface LatencyRow {
  variant: string;
  requests: number;
  p50Ms: number;
  p99Ms: number;
  statuses: Record<number, number>;
}

/** An authenticated POST with a small body, counted in the roomy `availability` pool. */
const echoRoute = defineRoute({
  method: 'post',
  path: '/bench/echo',
  operationId: 'benchEcho',
  summary: 'Echo for benchmarks',
  tags: ['bench'],
  scope: 'any',
  rateLimitGroup: 'availability',
  request: { body: z.object({ n: z.number().int() }) },
  responses: { 201: { description: 'Echoed' } },
  handler: (ctx, { body }) => {
    ctx.status = 201;
    ctx.body = body;
  },
});

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))] ?? 0;
}

/**
 * The same route, the same session, one request at a time over loopback HTTP, with the given layers
 * on. Differences between variants are what the layers add per request.
 */
export async function benchHttpVariant(props: {
  deps: AppDeps;
  token: string;
  variant: string;
  layers: RouterLayers;
  idempotencyKeys: boolean;
  requests: number;
}): Promise<LatencyRow> {
  const http = await listen(createApp(props.deps, { extraRoutes: [echoRoute], layers: props.layers }), '127.0.0.1', 0);
  const timings: number[] = [];
  const statuses: Record<number, number> = {};
  try {
    for (let i = 0; i < props.requests + 50; i += 1) {
      const headers: Record<string, string> = { authorization: `Bearer ${props.token}`, 'content-type': 'application/json' };
      if (props.idempotencyKeys) headers['idempotency-key'] = `bench-${props.variant}-${i}-${Date.now()}`;
      const started = performance.now();
      const res = await fetch(`${http.url}/bench/echo`, { method: 'POST', headers, body: JSON.stringify({ n: i }) });
      await res.arrayBuffer();
      if (i >= 50) {
        // The first 50 warm the connection pool, JIT and caches.
        timings.push(performance.now() - started);
        statuses[res.status] = (statuses[res.status] ?? 0) + 1;
      }
    }
  } finally {
    await http.close(1_000);
  }
  timings.sort((a, b) => a - b);
  return { variant: props.variant, requests: props.requests, p50Ms: percentile(timings, 50), p99Ms: percentile(timings, 99), statuses };
}
