import { afterAll, beforeAll, describe, expect, inject, it, vi } from 'vitest';
import { pino } from 'pino';
import type { Redis } from 'ioredis';
import { createRedis, redisReady } from '../redis.js';
import { randomBase62 } from '../ids.js';
import { createRateLimiter, rateLimitKeys, type Decision, type PoolInput, type RateLimiter } from './limiter.js';
import { creditFor, PoolCredit } from './credit.js';

const silent = pino({ level: 'silent' });
const redisUrl = inject('redisUrl');

/** A clock the test moves by hand, starting on the next second boundary. */
function manualClock() {
  let t = (Math.floor(Date.now() / 1_000) + 1) * 1_000;
  return { now: () => t, set: (ms: number) => void (t = ms), start: t };
}

const clients: Redis[] = [];
/** One Redis connection per limiter: each stands for an api process of its own. */
async function connected(): Promise<Redis> {
  const redis = createRedis(redisUrl, silent);
  expect(await redisReady(redis, 5_000)).toBe(true);
  clients.push(redis);
  return redis;
}
afterAll(() => clients.forEach((c) => c.disconnect()));

const pool = (limits: PoolInput['limits']): PoolInput => ({ pool: 'test', subject: `credit-${randomBase62(10)}`, limits });
/** Lets replies from Redis in between decisions, as a busy api process does. */
const yieldToIo = () => new Promise<void>((resolve) => setImmediate(resolve));

describe('credit', () => {
  it('is 5 % of the burst, and none below 2', () => {
    expect(creditFor({ perMinute: 300, perSecond: 30 })).toBe(0);
    expect(creditFor({ perMinute: 1_500, perSecond: 50 })).toBe(2);
    expect(creditFor({ perMinute: 6_000, perSecond: 600 })).toBe(30);
  });
});

describe('what a process counts as spent', () => {
  it('counts its own requests that Redis is still deciding, so credit meanwhile cannot pass the limit', () => {
    const limits = { perMinute: 100_000, perSecond: 400 };
    const state = new PoolCredit('pool', 'subject');
    const at = 1_000_000;
    state.roll(at);
    // Redis counted 390 in this second; ten of this process's requests are on their way to it.
    state.learn(state.take(at), { mw: state.minute, mc: 390, sw: state.second, sc: 390, until: 0 });
    const inFlight = Array.from({ length: 10 }, () => state.take(at, 1));
    expect(state.canAdmit(limits, 20, 1, at)).toBe(false);
    // Redis refused them all: the second still holds 390, so there is room again.
    for (const carry of inFlight) state.learn(carry, { mw: state.minute, mc: 390, sw: state.second, sc: 390, until: 0 });
    expect(state.canAdmit(limits, 20, 1, at)).toBe(true);
  });
});

describe('one process deciding on credit', () => {
  let redis: Redis;
  beforeAll(async () => {
    redis = await connected();
  });

  it('decides most requests without Redis, with the same counts, headers and refusal Redis would give', async () => {
    const clock = manualClock();
    const limiter = createRateLimiter({ redis, logger: silent, now: clock.now });
    const input = pool({ perMinute: 20_000, perSecond: 2_000 });
    const scripts = vi.spyOn(redis, 'evalsha');
    const decisions: Decision[] = [];
    for (let i = 0; i < 2_001; i += 1) {
      decisions.push(await limiter.consumePool(input));
      if (i % 50 === 0) await yieldToIo();
    }
    const calls = scripts.mock.calls.length;
    scripts.mockRestore();
    expect(decisions.slice(0, 2_000).map((d) => d.remaining)).toEqual(Array.from({ length: 2_000 }, (_, i) => 19_999 - i));
    expect(decisions.every((d) => !d.degraded && d.limit === 20_000 && d.resetAt === Math.floor(clock.start / 60_000) * 60 + 60)).toBe(true);
    // The 2,001st in the same second is refused by Redis, with the time to the next second.
    expect(decisions[2_000]).toMatchObject({ allowed: false, remaining: 0, retryAfterSeconds: 1 });
    console.log(`2,001 decisions, ${calls} calls to Redis`);
    expect(calls).toBeLessThan(100);
  });

  it('reports what it admitted, so another process sees it', async () => {
    const clock = manualClock();
    const limiter = createRateLimiter({ redis, logger: silent, now: clock.now });
    const other = createRateLimiter({ redis: await connected(), logger: silent, now: clock.now });
    const input = pool({ perMinute: 20_000, perSecond: 2_000 });
    for (let i = 0; i < 40; i += 1) await limiter.consumePool(input);
    limiter.flush();
    const [window] = rateLimitKeys(input.pool, input.subject);
    await vi.waitFor(async () => expect(await redis.hget(window, 'mc')).toBe('40'));
    // The other process's first decision on the pool asks Redis, and counts from there.
    expect(await other.consumePool(input)).toMatchObject({ allowed: true, remaining: 19_959 });
  });
});

/**
 * Two limiters with state of their own against one Redis, as two api processes are, hammering one
 * pool from 16 concurrent clients at one instant: no more than the limit plus one process's credit
 * is admitted, whichever window binds.
 */
describe('two processes hammering one pool', () => {
  let processes: RateLimiter[];
  const clock = manualClock();

  beforeAll(async () => {
    processes = [
      createRateLimiter({ redis: await connected(), logger: silent, now: clock.now }),
      createRateLimiter({ redis: await connected(), logger: silent, now: clock.now }),
    ];
  });

  async function hammer(input: PoolInput, requests: number): Promise<number> {
    // Each process hears of the pool once (its first decision goes to Redis), as a running api has.
    let allowed = 0;
    for (const limiter of processes) if ((await limiter.consumePool(input)).allowed) allowed += 1;
    let sent = 2;
    const client = async (n: number) => {
      while (sent < requests) {
        sent += 1;
        if ((await processes[n % 2]!.consumePool(input)).allowed) allowed += 1;
        await yieldToIo();
      }
    };
    await Promise.all(Array.from({ length: 16 }, (_, n) => client(n)));
    return allowed;
  }

  it.each([
    { binds: 'the burst', limits: { perMinute: 100_000, perSecond: 400 }, limit: 400 },
    { binds: 'the minute', limits: { perMinute: 400, perSecond: 400 }, limit: 400 },
  ])('stays within limit + credit when $binds binds', async ({ binds, limits, limit }) => {
    const credit = creditFor(limits);
    expect(credit).toBe(20);
    const allowed = await hammer(pool(limits), 3 * limit);
    console.log(`${binds} binds: ${allowed} admitted of a limit of ${limit}; stated worst case ${limit + credit}`);
    expect(allowed).toBeGreaterThanOrEqual(limit);
    expect(allowed).toBeLessThanOrEqual(limit + credit);
  });
});
