import { afterAll, beforeAll, describe, expect, inject, it, vi } from 'vitest';
import { pino } from 'pino';
import type { Redis } from 'ioredis';
import { createRedis, redisReady } from '../redis.js';
import { randomBase62 } from '../ids.js';
import { createRateLimiter, rateLimitKeys, type Decision, type PoolInput, type RateLimiter } from './limiter.js';
import { leaseFor, PoolLease } from './lease.js';
import { manualClock } from '../../test/support/manualClock.js';

const silent = pino({ level: 'silent' });
const redisUrl = inject('redisUrl');

const clients: Redis[] = [];
/** One Redis connection per limiter: each stands for an api process of its own. */
async function connected(): Promise<Redis> {
  const redis = createRedis(redisUrl, silent);
  expect(await redisReady(redis, 5_000)).toBe(true);
  clients.push(redis);
  return redis;
}
afterAll(() => clients.forEach((c) => c.disconnect()));

const pool = (limits: PoolInput['limits']): PoolInput => ({ pool: 'test', subject: `lease-${randomBase62(10)}`, limits });
/** Lets replies from Redis in between decisions, as a busy api process does. */
const yieldToIo = () => new Promise<void>((resolve) => setImmediate(resolve));

describe('lease', () => {
  it('is 5 % of the burst, and none below 2', () => {
    expect(leaseFor({ perMinute: 300, perSecond: 30 })).toBe(0);
    expect(leaseFor({ perMinute: 1_500, perSecond: 50 })).toBe(2);
    expect(leaseFor({ perMinute: 6_000, perSecond: 600 })).toBe(30);
  });
});

describe('what a process holds of a lease', () => {
  const limits = { perMinute: 100_000, perSecond: 400 };
  const at = 1_000_000;
  const snapshot = (lease: PoolLease, mc: number, until = 0) => ({ mw: lease.minute, mc, sw: lease.second, sc: mc, until });

  it('spends what it was granted, then asks again; a second that ends gives its unspent tokens back to the minute', () => {
    const lease = new PoolLease('pool', 'subject', limits);
    const call = lease.take(at, 'decide', 20);
    expect(call.want).toBe(20);
    // Redis decided the request (1) and granted 20: 21 counted in the minute, 20 of them here.
    lease.learn(call, snapshot(lease, 21), 20);
    for (let i = 0; i < 20; i += 1) {
      expect(lease.canSpend(1, at)).toBe(true);
      lease.spend(1);
    }
    expect(lease.canSpend(1, at)).toBe(false);
    expect(lease.remaining()).toBe(100_000 - 21);

    const next = lease.take(at, 'decide', 20);
    lease.learn(next, snapshot(lease, 42), 20);
    lease.spend(5);
    // 27 spent of the minute (2 decided by Redis, 25 here), 15 still leased here:
    // X-RateLimit-Remaining counts only what was spent.
    expect(lease.remaining()).toBe(100_000 - 27);
    expect(lease.canSpend(1, at + 1_000)).toBe(false);
    expect(lease.take(at + 1_000, 'top-up', 20)).toMatchObject({ want: 0, backMinute: 15, backSecond: 0 });
  });

  it('spends nothing on its own while a block it knows of lasts, and asks for nothing then', () => {
    const lease = new PoolLease('pool', 'subject', limits);
    const call = lease.take(at, 'decide', 20);
    lease.learn(call, snapshot(lease, 400, at + 1_000), 0);
    expect(lease.canSpend(1, at)).toBe(false);
    expect(lease.take(at, 'decide', 20).want).toBe(0);
  });

  it('gives every unspent token back at shutdown, and tokens a failed call may have got are never spent', () => {
    const lease = new PoolLease('pool', 'subject', limits);
    lease.learn(lease.take(at, 'decide', 20), snapshot(lease, 21), 20);
    lease.spend(3);
    const lost = lease.take(at, 'top-up', 20);
    expect(lost.want).toBe(3);
    lease.lost(lost);
    expect(lease.take(at, 'give-back', 20)).toMatchObject({ want: 0, backMinute: 17, backSecond: 17 });
    expect(lease.holds()).toBe(false);
  });
});

describe('one process deciding on its lease', () => {
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

  it('gives back what it did not spend, so another process sees exactly what was spent', async () => {
    const clock = manualClock();
    const limiter = createRateLimiter({ redis, logger: silent, now: clock.now });
    const other = createRateLimiter({ redis: await connected(), logger: silent, now: clock.now });
    const input = pool({ perMinute: 20_000, perSecond: 2_000 });
    for (let i = 0; i < 40; i += 1) await limiter.consumePool(input);
    await limiter.giveBackLeases();
    const [window] = rateLimitKeys(input.pool, input.subject);
    await vi.waitFor(async () => expect(await redis.hget(window, 'mc')).toBe('40'));
    // The other process's first decision on the pool asks Redis, and counts from there.
    expect(await other.consumePool(input)).toMatchObject({ allowed: true, remaining: 19_959 });
  });

  it('gives back a lease taken under larger limits before a request under smaller ones is decided', async () => {
    // A plan change (or a path whose organisation pays less) moves the same pool to a smaller burst.
    const clock = manualClock();
    const limiter = createRateLimiter({ redis, logger: silent, now: clock.now });
    const larger = pool({ perMinute: 1_200, perSecond: 200 });
    const smaller = { ...larger, limits: { perMinute: 60, perSecond: 10 } };
    for (let i = 0; i < 5; i += 1) expect((await limiter.consumePool(larger)).allowed).toBe(true);
    const decisions: Decision[] = [];
    for (let i = 0; i < 6; i += 1) decisions.push(await limiter.consumePool(smaller));
    expect(decisions.map((d) => d.allowed)).toEqual([true, true, true, true, true, false]);
    expect(decisions[0]).toMatchObject({ remaining: 54 });
  });

  it('never spends a lease taken under larger limits on requests under smaller ones that are leased too', async () => {
    // An enterprise organisation's path, then a pro one's, on one pool: the pro requests are admitted at pro limits.
    const clock = manualClock();
    const limiter = createRateLimiter({ redis, logger: silent, now: clock.now });
    const larger = pool({ perMinute: 24_000, perSecond: 600 });
    const smaller = { ...larger, limits: { perMinute: 6_000, perSecond: 150 } };
    expect([leaseFor(larger.limits), leaseFor(smaller.limits)]).toEqual([30, 7]);
    expect((await limiter.consumePool(larger)).allowed).toBe(true);
    const decisions: Decision[] = [];
    for (let i = 0; i < 200; i += 1) {
      decisions.push(await limiter.consumePool(smaller));
      await yieldToIo();
    }
    // The second's window holds the larger request too: 149 more fit the smaller burst.
    expect(decisions.filter((d) => d.allowed)).toHaveLength(149);
    expect(decisions.slice(149).every((d) => !d.allowed)).toBe(true);
    expect(decisions.every((d) => d.limit === 6_000 && d.remaining <= 6_000)).toBe(true);
  });

  it('gives back to the minute what a second left unspent, with nobody spending', async () => {
    const clock = manualClock();
    const limiter = createRateLimiter({ redis, logger: silent, now: clock.now });
    const input = pool({ perMinute: 20_000, perSecond: 2_000 });
    for (let i = 0; i < 6; i += 1) await limiter.consumePool(input);
    const [window] = rateLimitKeys(input.pool, input.subject);
    // One decided by Redis with a lease of 100, five spent of it: the minute counts all 101 for now.
    expect(await redis.hget(window, 'mc')).toBe('101');
    clock.set(clock.start + 1_000);
    await vi.waitFor(async () => expect(await redis.hget(window, 'mc')).toBe('6'), { timeout: 3_000 });
  });
});

/**
 * Two limiters with state of their own against one Redis, as two api processes are, hammering one
 * pool from 16 concurrent clients at one instant: never more than the limit, whichever window binds,
 * and no fewer than the limit less the other process's lease (tokens it holds and has not spent when
 * a refusal starts a block).
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
  ])('admits no more than the limit when $binds binds', async ({ binds, limits, limit }) => {
    const lease = leaseFor(limits);
    expect(lease).toBe(20);
    const allowed = await hammer(pool(limits), 3 * limit);
    console.log(`${binds} binds: ${allowed} admitted of a limit of ${limit}`);
    expect(allowed).toBeLessThanOrEqual(limit);
    expect(allowed).toBeGreaterThanOrEqual(limit - lease);
  });
});
