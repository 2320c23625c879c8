import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { pino } from 'pino';
import type { Redis } from 'ioredis';
import { createRedis, redisReady } from '../redis.js';
import { ApiKeyMisses } from './apiKeyMisses.js';
import { InvalidTokenError } from './errors.js';

const silent = pino({ level: 'silent' });
let redis: Redis;
let subscriber: Redis;
beforeAll(async () => {
  redis = createRedis(inject('redisUrl'), silent);
  subscriber = createRedis(inject('redisUrl'), silent, { enableOfflineQueue: true, maxRetriesPerRequest: null });
  expect(await redisReady(redis, 5_000)).toBe(true);
  // The subscriber's first 'ready' counts as a reconnection (everything is forgotten); it must come
  // before the tests, not in the middle of one.
  expect(await redisReady(subscriber, 5_000)).toBe(true);
});
afterAll(async () => {
  subscriber?.disconnect();
  await redis?.quit();
});

describe('unknown-key misses', () => {
  it('does not remember a miss whose look-up overlapped the creation of a key', async () => {
    const misses = new ApiKeyMisses({ redis, subscriber, logger: silent });
    const unknown = new InvalidTokenError('Unknown API key');
    // A look-up starts, the key is created meanwhile, then the look-up (which saw no row) finishes.
    const startedAt = misses.begin();
    await misses.created('hash-of-new-key');
    misses.remember('hash-of-new-key', unknown, startedAt);
    expect(misses.lookup('hash-of-new-key')).toBeUndefined();
    // An undisturbed miss is remembered, and answered without a look-up.
    misses.remember('hash-of-forged-key', unknown, misses.begin());
    expect(misses.lookup('hash-of-forged-key')).toBe(unknown);
  });

  it('remembers a miss whose look-up overlapped the creation of another key, but not one that overlapped a reconnection', async () => {
    const misses = new ApiKeyMisses({ redis, subscriber, logger: silent });
    const unknown = new InvalidTokenError('Unknown API key');
    const startedAt = misses.begin();
    await misses.created('hash-of-someone-elses-key');
    misses.remember('hash-of-forged-key', unknown, startedAt);
    expect(misses.lookup('hash-of-forged-key')).toBe(unknown);

    const beforeReconnection = misses.begin();
    subscriber.emit('ready');
    expect(misses.lookup('hash-of-forged-key')).toBeUndefined();
    misses.remember('hash-of-another-forged-key', unknown, beforeReconnection);
    expect(misses.lookup('hash-of-another-forged-key')).toBeUndefined();
  });
});
