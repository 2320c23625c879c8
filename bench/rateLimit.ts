import { performance } from 'node:perf_hooks';
import { pino } from 'pino';
import { createRedis, redisReady } from '../src/redis.js';
import { randomBase62 } from '../src/ids.js';
import { createRateLimiter } from '../src/rateLimit/limiter.js';
import { nearestRank as percentile } from './lib/report.js';

export interface ConsumeBenchResult {
  iterations: number;
  p50Ms: number;
  p99Ms: number;
  meanMs: number;
  maxMs: number;
  /** Decisions that came back allowed; the bench keeps each subject under its burst, so all should. */
  allowed: number;
  /** Decisions that came from the in-memory fallback; non-zero means the numbers are not Redis's. */
  degraded: number;
}

export interface ConsumeBenchOptions {
  redisUrl?: string;
  warmup?: number;
}

/**
 * Latency of one `consume` against real Redis, one call at a time (the allowed path, which writes:
 * each subject takes 20 `read` requests, under its 30 a second burst). Throws if Redis is not reachable,
 * so in-memory numbers are never reported as Redis numbers.
 */
export async function benchConsume(iterations: number, options: ConsumeBenchOptions = {}): Promise<ConsumeBenchResult> {
  if (!Number.isInteger(iterations) || iterations < 1) throw new RangeError('iterations must be a positive integer');
  const logger = pino({ level: 'warn' });
  const redis = createRedis(options.redisUrl ?? process.env.REDIS_URL ?? 'redis://127.0.0.1:6379', logger);
  try {
    if (!(await redisReady(redis, 2_000))) throw new Error('Redis is not reachable; nothing to benchmark');
    const limiter = createRateLimiter({ redis, logger });
    const run = `bench-${randomBase62(8)}`;
    const consumeAt = (i: number) => limiter.consume({ subject: `${run}-${Math.floor(i / 20)}`, group: 'read', plan: 'free' });

    const warmup = options.warmup ?? Math.min(200, iterations);
    for (let i = 0; i < warmup; i++) await consumeAt(-1 - i);

    const samples: number[] = [];
    let allowed = 0;
    let degraded = 0;
    for (let i = 0; i < iterations; i++) {
      const started = performance.now();
      const decision = await consumeAt(i);
      samples.push(performance.now() - started);
      if (decision.allowed) allowed += 1;
      if (decision.degraded) degraded += 1;
    }
    samples.sort((a, b) => a - b);
    const round = (ms: number) => Math.round(ms * 1_000) / 1_000;
    return {
      iterations,
      p50Ms: round(percentile(samples, 50)),
      p99Ms: round(percentile(samples, 99)),
      meanMs: round(samples.reduce((sum, ms) => sum + ms, 0) / samples.length),
      maxMs: round(samples[samples.length - 1] ?? 0),
      allowed,
      degraded,
    };
  } finally {
    await redis.quit().catch(() => redis.disconnect());
  }
}
