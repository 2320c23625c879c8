import autocannon from 'autocannon';
import Koa from 'koa';
import type { AppDeps } from '../src/deps.js';
import { createApp } from '../src/app.js';
import { listen } from '../src/http/listen.js';

export interface ThroughputRow {
  target: string;
  requestsPerSecond: number;
  p50Ms: number;
  p99Ms: number;
  non2xx: number;
}

interface Target {
  target: string;
  method: 'GET' | 'POST';
  path: string;
  token?: string;
  body?: string;
}

async function run(url: string, target: Target, seconds: number): Promise<ThroughputRow> {
  const result = await autocannon({
    url: `${url}${target.path}`,
    method: target.method,
    connections: 10,
    duration: seconds,
    headers: {
      ...(target.token ? { authorization: `Bearer ${target.token}` } : {}),
      ...(target.body ? { 'content-type': 'application/json' } : {}),
    },
    ...(target.body ? { body: target.body } : {}),
  });
  return {
    target: target.target,
    requestsPerSecond: result.requests.average,
    p50Ms: result.latency.p50,
    p99Ms: result.latency.p99,
    non2xx: result.non2xx,
  };
}

/**
 * Requests per second and latency under load (10 connections) for the api's hot read paths, each
 * against a bare Koa route in the same run. The rate limiter is off here so the numbers show the
 * routes' cost rather than the limits; its own cost is in the layer table.
 */
export async function benchThroughput(props: { deps: AppDeps; sessionToken: string; testKey: string; seconds: number }): Promise<ThroughputRow[]> {
  const bare = new Koa();
  bare.use((ctx) => {
    ctx.body = { ok: true };
  });
  const bareServer = await listen(bare, '127.0.0.1', 0);
  const api = await listen(createApp(props.deps, { layers: { rateLimit: false, idempotency: true } }), '127.0.0.1', 0);
  const bulkNames = JSON.stringify({ names: Array.from({ length: 500 }, (_, i) => `bench-name-${i}.com`) });
  try {
    const rows = [await run(bareServer.url, { target: 'bare Koa route', method: 'GET', path: '/' }, props.seconds)];
    const targets: Target[] = [
      { target: 'GET /api/v1/me (session JWT)', method: 'GET', path: '/api/v1/me', token: props.sessionToken },
      { target: 'GET availability (test key)', method: 'GET', path: '/api/v1/domains/availability?name=bench.com', token: props.testKey },
      { target: 'POST bulk, 500 names (test key)', method: 'POST', path: '/api/v1/domains/availability/bulk', token: props.testKey, body: bulkNames },
    ];
    for (const target of targets) rows.push(await run(api.url, target, props.seconds));
    return rows;
  } finally {
    await api.close(1_000);
    await bareServer.close(1_000);
  }
}
