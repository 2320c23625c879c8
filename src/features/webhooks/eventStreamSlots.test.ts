import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { pino } from 'pino';
import type { Redis } from 'ioredis';
import { setTimeout as sleep } from 'node:timers/promises';
import { createRedis, redisReady } from '../../redis.js';
import { randomBase62 } from '../../ids.js';
import { EventStreamSlots, type StreamSlotOwner } from './eventStreamSlots.js';
import { modeOf } from '../../db/modeScope.js';

let redis: Redis;

beforeAll(async () => {
  redis = createRedis(inject('redisUrl'), pino({ level: 'silent' }));
  expect(await redisReady(redis, 5_000)).toBe(true);
});
afterAll(() => redis.disconnect());

const TEST = modeOf(false);
const LIVE = modeOf(true);
const owner = (orgId: string, userId: string, mode = TEST): StreamSlotOwner => ({ orgId, userId, mode });
const newOrg = () => `org_slots_${randomBase62(10)}`;

describe('event stream slots', () => {
  it('keep their places for as long as they are renewed, many lifetimes over', async () => {
    const ttlMs = 300;
    const slots = new EventStreamSlots(redis, ttlMs);
    const orgId = newOrg();
    const held = await Promise.all(['u1', 'u2', 'u3'].map(async (user) => ({ who: owner(orgId, user), taken: await slots.take(owner(orgId, user), { perOrg: 10, perUser: 5 }) })));
    const renewals: boolean[] = [];
    // As a stream does: renew every third of the lifetime, here for ten lifetimes (the keys' own
    // expiry, twice the lifetime, passed five times over).
    for (let round = 0; round < 30; round += 1) {
      await sleep(slots.renewEveryMs);
      for (const { who, taken } of held) renewals.push(await slots.renew(who, (taken as { slot: string }).slot));
    }
    expect(renewals.filter((kept) => !kept)).toEqual([]);
    expect(await redis.zcard(`event-streams:${orgId}:test`)).toBe(3);
  });

  it('are counted per member and per organisation in each mode: one member cannot take them all, nor test mode live mode’s', async () => {
    const slots = new EventStreamSlots(redis, 60_000);
    const orgId = newOrg();
    const limits = { perOrg: 3, perUser: 2 };
    expect(await slots.take(owner(orgId, 'ada'), limits)).toHaveProperty('slot');
    const second = await slots.take(owner(orgId, 'ada'), limits);
    expect(second).toHaveProperty('slot');
    expect(await slots.take(owner(orgId, 'ada'), limits)).toEqual({ refused: 'user', limit: 2 });
    expect(await slots.take(owner(orgId, 'bob'), limits)).toHaveProperty('slot');
    expect(await slots.take(owner(orgId, 'cy'), limits)).toEqual({ refused: 'organization', limit: 3 });
    // The other mode has all of its own.
    for (const user of ['ada', 'ada', 'bob']) expect(await slots.take(owner(orgId, user, LIVE), limits)).toHaveProperty('slot');
    // A slot released is free again for its member and the organisation.
    await slots.release(owner(orgId, 'ada'), (second as { slot: string }).slot);
    expect(await slots.take(owner(orgId, 'cy'), limits)).toHaveProperty('slot');
    expect(await slots.renew(owner(orgId, 'ada'), (second as { slot: string }).slot)).toBe(false);
  });
});
