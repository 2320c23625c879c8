import { Redis, type RedisOptions } from 'ioredis';
import type { Logger } from './logger.js';

/**
 * Redis fails fast while it is unreachable (no offline queue), so a Redis outage shows up as an
 * error the caller handles (readiness, limiter fallback) instead of requests hanging.
 */
export function createRedis(url: string, logger: Logger, overrides: RedisOptions = {}): Redis {
  const redis = new Redis(url, {
    enableOfflineQueue: false,
    maxRetriesPerRequest: 1,
    connectTimeout: 2_000,
    retryStrategy: (attempt) => Math.min(attempt * 250, 2_000),
    ...overrides,
  });
  let healthy = true;
  redis.on('error', (err) => {
    if (healthy) logger.warn({ err: err.message }, 'Redis unreachable; retrying');
    healthy = false;
  });
  redis.on('ready', () => {
    if (!healthy) logger.info('Redis reachable again');
    healthy = true;
  });
  return redis;
}

/** Resolves once Redis is ready or the timeout passes; starting up never waits forever on it. */
export function redisReady(redis: Redis, timeoutMs: number): Promise<boolean> {
  if (redis.status === 'ready') return Promise.resolve(true);
  return new Promise((resolve) => {
    const timer = setTimeout(() => {
      redis.off('ready', onReady);
      resolve(false);
    }, timeoutMs);
    const onReady = () => {
      clearTimeout(timer);
      resolve(true);
    };
    redis.once('ready', onReady);
  });
}
