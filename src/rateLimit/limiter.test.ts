import { once } from 'node:events';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { pino } from 'pino';
import type { Redis } from 'ioredis';
import { createRedis, redisReady } from '../redis.js';
import { randomBase62 } from '../ids.js';
import { CLOSED_PORT_URL } from '../../test/support/testApp.js';
import { manualClock, type ManualClock as Clock } from '../../test/support/manualClock.js';
import { limitsFor, type Plan, type RateLimitGroup } from './groups.js';
import { createRateLimiter, rateLimitKeys, type Decision, type RateLimiter } from './limiter.js';

const MINUTE = 60_000;
const silent = pino({ level: 'silent' });

interface LogLine {
  level: number;
  msg: string;
}

/** A logger whose lines land in an array (pino destination stream). */
function capturedLogger() {
  const lines: LogLine[] = [];
  const logger = pino({ level: 'info' }, { write: (line: string) => void lines.push(JSON.parse(line) as LogLine) });
  return { logger, lines, warnings: () => lines.filter((l) => l.level === 40) };
}

const subject = (label: string) => `test-${label}-${randomBase62(10)}`;

async function connected(url: string): Promise<Redis> {
  const redis = createRedis(url, silent);
  expect(await redisReady(redis, 5_000)).toBe(true);
  return redis;
}

function sequential(limiter: RateLimiter, input: { subject: string; group: RateLimitGroup; plan: Plan }, n: number) {
  return (async () => {
    const out: Decision[] = [];
    for (let i = 0; i < n; i++) out.push(await limiter.consume(input));
    return out;
  })();
}

/**
 * Spends the whole free `write` minute (60, at 10 a second over seconds 0–5 of the window starting
 * at `windowStart`), then asks once more at second 6 and returns that refusal.
 */
async function exhaustWriteMinute(limiter: RateLimiter, clock: Clock, who: string, windowStart: number): Promise<Decision> {
  const input = { subject: who, group: 'write', plan: 'free' } as const;
  for (let s = 0; s < 6; s++) {
    clock.set(windowStart + s * 1_000);
    const batch = await sequential(limiter, input, 10);
    expect(batch.every((d) => d.allowed)).toBe(true);
    expect(batch[9]!.remaining).toBe(50 - 10 * s);
  }
  clock.set(windowStart + 6_000);
  return limiter.consume(input);
}

const redisUrl = inject('redisUrl');
let liveRedis: Redis;
let deadRedis: Redis;

beforeAll(async () => {
  liveRedis = await connected(redisUrl);
  deadRedis = createRedis(CLOSED_PORT_URL, silent);
});
afterAll(async () => {
  await liveRedis?.quit();
  deadRedis?.disconnect();
});

describe('group limits', () => {
  it('has the interface table and scales limit and burst by plan', () => {
    expect(limitsFor('availability', 'free')).toEqual({ perMinute: 600, perSecond: 60 });
    expect(limitsFor('read', 'free')).toEqual({ perMinute: 300, perSecond: 30 });
    expect(limitsFor('write', 'free')).toEqual({ perMinute: 60, perSecond: 10 });
    expect(limitsFor('bulk', 'free')).toEqual({ perMinute: 10, perSecond: 2 });
    expect(limitsFor('write', 'pro')).toEqual({ perMinute: 300, perSecond: 50 });
    expect(limitsFor('bulk', 'enterprise')).toEqual({ perMinute: 200, perSecond: 40 });
    // RATE_LIMIT_SCALE multiplies both, never below one request.
    expect(limitsFor('write', 'pro', 1000)).toEqual({ perMinute: 300_000, perSecond: 50_000 });
    expect(limitsFor('bulk', 'free', 0.1)).toEqual({ perMinute: 1, perSecond: 1 });
  });
});

// Every behaviour holds with the numbers exactly the same whether Redis decides or the in-memory fallback does.
describe.each([
  { backend: 'redis', client: () => liveRedis, degraded: false },
  { backend: 'memory (Redis unreachable)', client: () => deadRedis, degraded: true },
])('rate limiter on $backend', ({ client, degraded }) => {
  const limiterAt = (clock: Clock) => createRateLimiter({ redis: client(), logger: silent, now: clock.now });

  it('counts remaining down, with the window reset in the future', async () => {
    const clock = manualClock(Date.now());
    const limiter = limiterAt(clock);
    const decisions = await sequential(limiter, { subject: subject('countdown'), group: 'read', plan: 'free' }, 3);
    const resetAt = (Math.floor(clock.start / MINUTE) + 1) * 60;
    expect(decisions).toEqual([299, 298, 297].map((remaining) => ({ allowed: true, limit: 300, remaining, resetAt, degraded })));
    expect(resetAt).toBeGreaterThan(Date.now() / 1_000);
    expect(limiter.degraded()).toBe(degraded);
  });

  it('lets exactly the write burst of 10 through out of 25 concurrent requests', async () => {
    const clock = manualClock();
    const limiter = limiterAt(clock);
    const input = { subject: subject('burst'), group: 'write', plan: 'free' } as const;
    const decisions = await Promise.all(Array.from({ length: 25 }, () => limiter.consume(input)));
    const allowed = decisions.filter((d) => d.allowed);
    const refused = decisions.filter((d) => !d.allowed);
    expect(allowed).toHaveLength(10);
    expect(allowed.map((d) => d.remaining).sort((a, b) => a - b)).toEqual([50, 51, 52, 53, 54, 55, 56, 57, 58, 59]);
    expect(refused).toHaveLength(15);
    for (const d of refused) expect(d).toMatchObject({ remaining: 0, retryAfterSeconds: 1, limit: 60, degraded });

    // The 15 refusals spent nothing: the next second starts from 50 left. The 14 that arrived while
    // blocked doubled the next block once, so the next burst refusal asks for 2 s.
    clock.set(clock.start + 1_000);
    const next = await sequential(limiter, input, 11);
    expect(next.slice(0, 10).map((d) => d.remaining)).toEqual([49, 48, 47, 46, 45, 44, 43, 42, 41, 40]);
    expect(next[10]).toMatchObject({ allowed: false, retryAfterSeconds: 2 });
  });

  it('enforces the per-minute limit and frees it at the next window', async () => {
    const clock = manualClock();
    const limiter = limiterAt(clock);
    const who = subject('minute');
    const refusal = await exhaustWriteMinute(limiter, clock, who, clock.start);
    expect(refusal).toEqual({
      allowed: false,
      limit: 60,
      remaining: 0,
      resetAt: clock.start / 1_000 + 60,
      retryAfterSeconds: 54,
      degraded,
    });
    clock.set(clock.start + MINUTE);
    expect(await limiter.consume({ subject: who, group: 'write', plan: 'free' })).toMatchObject({ allowed: true, remaining: 59 });
    // Without an early retry the multiplier stayed 1: the next exhausted minute blocks for 54 s again.
    expect((await exhaustWriteMinute(limiter, clock, who, clock.start + 2 * MINUTE)).retryAfterSeconds).toBe(54);
  });

  it('doubles the next block after an early retry, up to 900 s', async () => {
    const clock = manualClock();
    const limiter = limiterAt(clock);
    const who = subject('backoff');
    const input = { subject: who, group: 'write', plan: 'free' } as const;
    let windowStart = clock.start;
    const blocks: number[] = [];
    for (let i = 0; i < 7; i++) {
      const refusal = await exhaustWriteMinute(limiter, clock, who, windowStart);
      const block = refusal.retryAfterSeconds!;
      blocks.push(block);
      // Retrying 1 s in (twice): still blocked, told the time left, and the next block doubles once.
      clock.set(windowStart + 7_000);
      expect(await limiter.consume(input)).toMatchObject({ allowed: false, retryAfterSeconds: block - 1 });
      expect(await limiter.consume(input)).toMatchObject({ allowed: false, retryAfterSeconds: block - 1 });
      // One millisecond before the block ends it still holds; at its end the caller is let through.
      const until = windowStart + 6_000 + block * 1_000;
      clock.set(until - 1);
      expect(await limiter.consume(input)).toMatchObject({ allowed: false, retryAfterSeconds: 1 });
      windowStart = Math.ceil(until / MINUTE) * MINUTE;
    }
    expect(blocks).toEqual([54, 108, 216, 432, 864, 900, 900]);
  });

  it('resets the multiplier after a clean minute window', async () => {
    const clock = manualClock();
    const limiter = limiterAt(clock);
    const [impatient, patient] = [subject('impatient'), subject('patient')];
    for (const who of [impatient, patient]) {
      expect((await exhaustWriteMinute(limiter, clock, who, clock.start)).retryAfterSeconds).toBe(54);
      clock.set(clock.start + 10_000);
      expect((await limiter.consume({ subject: who, group: 'write', plan: 'free' })).allowed).toBe(false);
    }
    // Both blocks end at the next minute. The window right after has not been clean yet: still doubled.
    expect((await exhaustWriteMinute(limiter, clock, impatient, clock.start + MINUTE)).retryAfterSeconds).toBe(108);
    // One full window (start + 1 min … start + 2 min) with no refusal: back to the base block.
    expect((await exhaustWriteMinute(limiter, clock, patient, clock.start + 2 * MINUTE)).retryAfterSeconds).toBe(54);
  });

  it('counts bulk in its own pool: exhausting it leaves availability and read untouched', async () => {
    const clock = manualClock();
    const limiter = limiterAt(clock);
    const who = subject('bulk');
    for (let s = 0; s < 5; s++) {
      clock.set(clock.start + s * 1_000);
      const pair = await sequential(limiter, { subject: who, group: 'bulk', plan: 'free' }, 2);
      expect(pair.map((d) => d.allowed)).toEqual([true, true]);
    }
    expect(await limiter.consume({ subject: who, group: 'bulk', plan: 'free' })).toMatchObject({
      allowed: false,
      limit: 10,
      retryAfterSeconds: 56,
    });
    expect(await limiter.consume({ subject: who, group: 'availability', plan: 'free' })).toMatchObject({
      allowed: true,
      limit: 600,
      remaining: 599,
    });
    expect(await limiter.consume({ subject: who, group: 'read', plan: 'free' })).toMatchObject({ allowed: true, remaining: 299 });
  });

  it('counts two subjects apart', async () => {
    const clock = manualClock();
    const limiter = limiterAt(clock);
    const [a, b] = [subject('a'), subject('b')];
    const fromA = await sequential(limiter, { subject: a, group: 'write', plan: 'free' }, 11);
    expect(fromA.filter((d) => d.allowed)).toHaveLength(10);
    expect(fromA[10]!.allowed).toBe(false);
    const fromB = await sequential(limiter, { subject: b, group: 'write', plan: 'free' }, 11);
    expect(fromB.map((d) => d.remaining)).toEqual([59, 58, 57, 56, 55, 54, 53, 52, 51, 50, 0]);
    expect(fromB.filter((d) => d.allowed)).toHaveLength(10);
  });

  it('applies the plan multiplier to limit and burst (pro = 5x)', async () => {
    const clock = manualClock();
    const limiter = limiterAt(clock);
    const input = { subject: subject('pro'), group: 'write', plan: 'pro' } as const;
    const decisions = await Promise.all(Array.from({ length: 60 }, () => limiter.consume(input)));
    expect(decisions.filter((d) => d.allowed)).toHaveLength(50);
    expect(decisions.every((d) => d.limit === 300)).toBe(true);
    expect(Math.min(...decisions.filter((d) => d.allowed).map((d) => d.remaining))).toBe(250);
    const enterprise = await limiter.consume({ subject: subject('ent'), group: 'availability', plan: 'enterprise' });
    expect(enterprise).toMatchObject({ allowed: true, limit: 12_000, remaining: 11_999 });
  });

  it('decides a chain of pools in one call, stopping at the first refusal', async () => {
    const limiter = limiterAt(manualClock());
    const own = { pool: 'write', subject: subject('own'), limits: { perMinute: 60, perSecond: 2 } };
    const user = { pool: 'write', subject: subject('user'), limits: { perMinute: 60, perSecond: 3 } };
    const chain = () => limiter.consumeChain([own, user]);
    const first = await chain();
    expect(first.map((d) => [d.allowed, d.remaining])).toEqual([[true, 59], [true, 59]]);
    await chain();
    // The first pool refuses: the second is neither counted nor reported.
    const third = await chain();
    expect(third).toHaveLength(1);
    expect(third[0]).toMatchObject({ allowed: false, retryAfterSeconds: 1, degraded });
    expect((await limiter.consumePool({ ...user })).remaining).toBe(57);
  });
});

describe('rate limiter on Redis', () => {
  it('uses the real clock by default', async () => {
    const limiter = createRateLimiter({ redis: liveRedis, logger: silent });
    const before = Math.floor(Date.now() / 1_000);
    const d = await limiter.consume({ subject: subject('clock'), group: 'read', plan: 'free' });
    expect(d).toMatchObject({ allowed: true, limit: 300, remaining: 299, degraded: false });
    expect(d.resetAt).toBeGreaterThan(before);
    expect(d.resetAt).toBeLessThanOrEqual(before + 61);
    expect(d.retryAfterSeconds).toBeUndefined();
  });

  it('writes only namespaced keys, each with a TTL', async () => {
    const clock = manualClock();
    const limiter = createRateLimiter({ redis: liveRedis, logger: silent, now: clock.now });
    const who = subject('keys');
    await sequential(limiter, { subject: who, group: 'write', plan: 'free' }, 11); // the 11th starts a 1 s block
    const [win, block] = rateLimitKeys('write', who);
    expect((await liveRedis.keys(`rl:write:${who}:*`)).sort()).toEqual([block, win]);
    // Window: to 1 s past the minute's end. Block: to the end of the first full minute after it ends.
    const winTtl = await liveRedis.pttl(win);
    const blockTtl = await liveRedis.pttl(block);
    expect(winTtl).toBeGreaterThan(55_000);
    expect(winTtl).toBeLessThanOrEqual(61_000);
    expect(blockTtl).toBeGreaterThan(115_000);
    expect(blockTtl).toBeLessThanOrEqual(120_000);
  });

  it('reloads the script when Redis has lost it (EVALSHA → NOSCRIPT → EVAL)', async () => {
    const limiter = createRateLimiter({ redis: liveRedis, logger: silent });
    const input = { subject: subject('noscript'), group: 'read', plan: 'free' } as const;
    await limiter.consume(input);
    await liveRedis.script('FLUSH');
    expect(await limiter.consume(input)).toMatchObject({ allowed: true, remaining: 298, degraded: false });
  });

  it('falls back for a request Redis does not answer in time', async () => {
    const redis = await connected(redisUrl);
    try {
      const log = capturedLogger();
      const limiter = createRateLimiter({ redis, logger: log.logger, commandTimeoutMs: 100 });
      // A blocking pop holds the connection for a second, so the script queues behind it.
      const held = redis.blpop(`rl:test:held:${randomBase62(8)}`, 1);
      const d = await limiter.consume({ subject: subject('slow'), group: 'read', plan: 'free' });
      expect(d).toMatchObject({ allowed: true, remaining: 299, degraded: true });
      expect(log.warnings().map((l) => l.msg)).toEqual([expect.stringMatching(/Redis unavailable/)]);
      await held;
    } finally {
      await redis.quit();
    }
  });

  it('logs one warning per outage and returns to Redis when it answers again', async () => {
    const redis = await connected(redisUrl);
    try {
      const log = capturedLogger();
      const clock = manualClock();
      const limiter = createRateLimiter({ redis, logger: log.logger, now: clock.now });
      const input = { subject: subject('outage'), group: 'write', plan: 'free' } as const;
      expect(await limiter.consume(input)).toMatchObject({ remaining: 59, degraded: false });

      redis.disconnect();
      const during = await sequential(limiter, input, 11);
      expect(during.map((d) => d.degraded)).toEqual(Array(11).fill(true));
      // Memory starts its own count (10 a second still holds); Redis keeps what it had.
      expect(during.filter((d) => d.allowed)).toHaveLength(10);
      expect(limiter.degraded()).toBe(true);
      expect(log.warnings()).toHaveLength(1);

      // The client still says `ready` for a moment after disconnect(): those commands fail instead.
      if (redis.status !== 'end') await once(redis, 'end');
      await redis.connect();
      clock.set(clock.start + 1_000);
      expect(await limiter.consume(input)).toMatchObject({ allowed: true, remaining: 58, degraded: false });
      expect(limiter.degraded()).toBe(false);
      expect(log.lines.filter((l) => l.level === 30).map((l) => l.msg)).toEqual([expect.stringMatching(/answering again/)]);

      redis.disconnect();
      expect((await limiter.consume(input)).degraded).toBe(true);
      expect(log.warnings()).toHaveLength(2);
    } finally {
      redis.disconnect();
    }
  });
});

describe('rate limiter with Redis unreachable', () => {
  it('keeps answering from memory, still limits, and warns exactly once', async () => {
    const log = capturedLogger();
    const clock = manualClock();
    const limiter = createRateLimiter({ redis: deadRedis, logger: log.logger, now: clock.now });
    expect(limiter.degraded()).toBe(true);
    const input = { subject: subject('down'), group: 'write', plan: 'free' } as const;
    const decisions = await Promise.all(Array.from({ length: 25 }, () => limiter.consume(input)));
    expect(decisions.every((d) => d.degraded)).toBe(true);
    expect(decisions.filter((d) => d.allowed)).toHaveLength(10);
    expect(decisions.filter((d) => !d.allowed).every((d) => d.retryAfterSeconds === 1)).toBe(true);
    expect(log.warnings()).toHaveLength(1);
    expect(log.lines).toHaveLength(1);
  });
});
