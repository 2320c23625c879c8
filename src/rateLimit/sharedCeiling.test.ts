import { afterAll, describe, expect, inject, it } from 'vitest';
import { pino } from 'pino';
import { createRedis, redisReady } from '../redis.js';
import { randomBase62 } from '../ids.js';
import { CLOSED_PORT_URL } from '../../test/support/testApp.js';
import { SharedCeilings, type Ceiling } from './sharedCeiling.js';

const silent = pino({ level: 'silent' });
const redis = createRedis(inject('redisUrl'), silent);
const deadRedis = createRedis(CLOSED_PORT_URL, silent);
afterAll(() => {
  redis.disconnect();
  deadRedis.disconnect();
});

const ceiling = (perSecond: number): Ceiling => ({ name: `test-${randomBase62(10)}`, perSecond });

async function takeMany(ceilings: SharedCeilings, of: readonly Ceiling[], n: number): Promise<(string | undefined)[]> {
  const refused: (string | undefined)[] = [];
  for (let i = 0; i < n; i += 1) refused.push((await ceilings.take(of))?.name);
  return refused;
}

describe('shared ceilings', () => {
  it('count every process into one ceiling a second, a refused request on none of them, and are whole again the next second', async () => {
    expect(await redisReady(redis, 5_000)).toBe(true);
    let now = 1_000_000_000_000;
    const one = new SharedCeilings(redis, () => now);
    const two = new SharedCeilings(redis, () => now);
    const share = ceiling(2);
    const all = ceiling(3);
    expect(await takeMany(one, [share, all], 2)).toEqual([undefined, undefined]);
    // The share is full; the request refused there takes nothing of the ceiling for all.
    expect(await takeMany(two, [share, all], 1)).toEqual([share.name]);
    expect(await takeMany(two, [all], 2)).toEqual([undefined, all.name]);
    now += 1_000;
    expect(await takeMany(one, [share, all], 3)).toEqual([undefined, undefined, share.name]);
  });

  it('count in the process while Redis does not answer', async () => {
    let now = 1_000_000_000_000;
    const alone = new SharedCeilings(deadRedis, () => now);
    const all = ceiling(2);
    expect(await takeMany(alone, [all], 3)).toEqual([undefined, undefined, all.name]);
    now += 1_000;
    expect(await takeMany(alone, [all], 1)).toEqual([undefined]);
  });
});
