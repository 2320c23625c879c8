import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { pino } from 'pino';
import type { Redis } from 'ioredis';
import { createRedis, redisReady } from '../redis.js';
import { randomBase62 } from '../ids.js';
import { CLOSED_PORT_URL } from '../../test/support/testApp.js';
import { createKeyedPacer } from './upstreamPacer.js';

const silent = pino({ level: 'silent' });
let shared: Redis;
let away: Redis;

beforeAll(async () => {
  shared = createRedis(inject('redisUrl'), silent);
  expect(await redisReady(shared, 5_000)).toBe(true);
  away = createRedis(CLOSED_PORT_URL, silent);
});
afterAll(() => {
  shared.disconnect();
  away.disconnect();
});

/** A clock the test moves by hand. */
function clock() {
  let t = Date.now();
  return { now: () => t, advance: (ms: number) => void (t += ms) };
}

describe('keyed pacer', () => {
  for (const [where, redis] of [['in Redis', () => shared], ['per process while Redis is away', () => away]] as const) {
    it(`spaces each key's turns at its rate, each key on its own (${where})`, async () => {
      const time = clock();
      // 600 a minute: one turn every 100 ms.
      const pacer = createKeyedPacer({ redis: redis(), logger: silent, name: `test-${randomBase62(8)}`, perMinute: 600, now: time.now });
      expect(await pacer.reserve('org_a:hooks.example.com', 1_000)).toEqual({ granted: true, waitMs: 0 });
      expect(await pacer.reserve('org_a:hooks.example.com', 1_000)).toEqual({ granted: true, waitMs: 100 });
      expect(await pacer.reserve('org_b:hooks.example.com', 1_000)).toEqual({ granted: true, waitMs: 0 });
      expect(await pacer.reserve('org_a:other.example.com', 1_000)).toEqual({ granted: true, waitMs: 0 });
      // A turn further off than the caller waits is not taken: it is told when to ask again.
      expect(await pacer.reserve('org_a:hooks.example.com', 150)).toEqual({ granted: false, waitMs: 200 });
      expect(await pacer.reserve('org_a:hooks.example.com', 150)).toEqual({ granted: false, waitMs: 200 });
      time.advance(100);
      expect(await pacer.reserve('org_a:hooks.example.com', 150)).toEqual({ granted: true, waitMs: 100 });
    });
  }
});
