import type { Redis } from 'ioredis';

/**
 * Counts attempts per key, shared by everyone who must agree on the count. The synthetic registrar
 * uses it for `-flaky` names, so that Temporal retries landing on another worker process still see
 * the earlier attempts.
 */
export interface AttemptCounter {
  /** Adds one attempt and returns the count including it (1 for the first). */
  increment(key: string): Promise<number>;
}

/** Counts are forgotten this long after the last attempt, so a name can be exercised again later. */
export const DEFAULT_ATTEMPT_TTL_SECONDS = 600;

/** One process only: for tests and single-process development. */
export class InMemoryAttemptCounter implements AttemptCounter {
  private readonly counts = new Map<string, { count: number; expiresAt: number }>();

  constructor(
    private readonly ttlSeconds = DEFAULT_ATTEMPT_TTL_SECONDS,
    private readonly now: () => number = Date.now,
  ) {}

  increment(key: string): Promise<number> {
    const now = this.now();
    const entry = this.counts.get(key);
    const count = entry && entry.expiresAt > now ? entry.count + 1 : 1;
    this.counts.set(key, { count, expiresAt: now + this.ttlSeconds * 1000 });
    return Promise.resolve(count);
  }
}

/** Shared across processes: INCR and EXPIRE in one MULTI, so a key never outlives its TTL. */
export class RedisAttemptCounter implements AttemptCounter {
  private readonly prefix: string;
  private readonly ttlSeconds: number;

  constructor(
    private readonly redis: Redis,
    options: { prefix?: string; ttlSeconds?: number } = {},
  ) {
    this.prefix = options.prefix ?? 'registrar:attempts:';
    this.ttlSeconds = options.ttlSeconds ?? DEFAULT_ATTEMPT_TTL_SECONDS;
  }

  async increment(key: string): Promise<number> {
    const redisKey = this.prefix + key;
    const replies = await this.redis.multi().incr(redisKey).expire(redisKey, this.ttlSeconds).exec();
    const [incrError, count] = replies?.[0] ?? [new Error('MULTI was aborted'), undefined];
    if (incrError) throw incrError;
    if (typeof count !== 'number') throw new Error(`INCR ${redisKey} answered ${String(count)}`);
    return count;
  }
}
