/**
 * Rate limiter: one decision per request, per (subject, group), atomically in Redis.
 *
 * Algorithm (script.ts runs it in one Lua call; memory.ts runs the same steps while Redis is away).
 * `now` is passed in (ms); limit L per minute and burst B per second come from the group × plan.
 *   1. Windows are fixed and aligned to the clock: minute M = floor(now / 60 s), second S = floor(now / 1 s).
 *      resetAt = start of minute M + 1 (unix seconds).
 *   2. Clean window: if a full minute window has passed since the block ended, i.e.
 *      now >= (ceil(until / 60 s) + 1) × 60 s, the back-off multiplier m returns to 1. (No refusal can
 *      happen after `until` without starting a new block, so this window had no refusal.)
 *   3. Blocked (now < until): refused, Retry-After = ceil((until − now) / 1 s), at least 1. The first such
 *      request in a block doubles m for the NEXT block (m = min(2m, 1024)); further ones in the same block
 *      change nothing, so requests already in flight when the block started cost one doubling, not many.
 *   4. Otherwise, counts of the minute and second windows (0 if the stored window is an older one):
 *      if minute count >= L or second count >= B, refused, and a block starts:
 *        wait = time until the exhausted window(s) reset; block = min(900 s, max(1, ceil(wait)) × m);
 *        until = now + block; Retry-After = block. The block is never shorter than the wait, so a client
 *        that honours Retry-After finds quota when it returns.
 *   5. Else allowed: both counts + 1; remaining = L − minute count.
 *   Refused requests never count against the quota; a refused decision reports remaining 0.
 *
 * Keys, both with TTLs (relative to `now`, so nothing outlives its meaning):
 *   rl:{group}:{subject}:win    hash mw, mc, sw, sc        expires 1 s after the minute window ends
 *   rl:{group}:{subject}:block  hash until, mult, viol     expires when the multiplier would reset (step 2)
 *
 * Redis unreachable (client not ready, command error, or no answer within `commandTimeoutMs`): the
 * decision comes from a per-process Map with the same steps (so the limit is per process while it
 * lasts), marked `degraded: true`. One warning per outage; the first Redis success ends it (logged at info).
 */
import type { Redis } from 'ioredis';
import type { Logger } from '../logger.js';
import { limitsFor, MAX_BACKOFF_MULTIPLIER, MAX_BLOCK_SECONDS, type GroupLimits, type Plan, type RateLimitGroup } from './groups.js';
import { createMemoryLimiter, type RawDecision } from './memory.js';
import { runChainScript, runConsumeScript } from './script.js';

export interface ConsumeInput {
  /** Opaque caller key: the API key id, or the session id for browser tokens. */
  subject: string;
  group: RateLimitGroup;
  plan: Plan;
}

/**
 * Any pool: a group limit scaled (the per-user ceiling), a per-address pool, a budget counted in
 * names rather than requests. `cost` is what this request spends (1 unless it stands for many calls).
 */
export interface PoolInput {
  pool: string;
  subject: string;
  limits: GroupLimits;
  cost?: number;
}

export interface Decision {
  allowed: boolean;
  /** Per-minute limit of the group after the plan multiplier (`X-RateLimit-Limit`). */
  limit: number;
  /** Requests left in the minute window; 0 when refused (`X-RateLimit-Remaining`). */
  remaining: number;
  /** Unix seconds at which the minute window resets (`X-RateLimit-Reset`). */
  resetAt: number;
  /** Integer >= 1, present only when refused (`Retry-After`). */
  retryAfterSeconds?: number;
  /** True when Redis was unreachable and the per-process fallback decided. */
  degraded: boolean;
}

export interface RateLimiterOptions {
  redis: Redis;
  logger: Logger;
  /** Clock in milliseconds; tests move it instead of waiting. */
  now?: () => number;
  /** A Redis call slower than this is treated as an outage for that request. */
  commandTimeoutMs?: number;
}

export interface RateLimiter {
  consume(input: ConsumeInput): Promise<Decision>;
  consumePool(input: PoolInput): Promise<Decision>;
  /**
   * One request's pools in one round trip, in order, stopping at the first refusal (later pools are
   * neither counted nor reported). One decision per pool reached; the last one is the refusal, if any.
   */
  consumeChain(pools: PoolInput[]): Promise<Decision[]>;
  /** True while Redis is not answering and decisions come from memory (for /readyz). */
  degraded(): boolean;
}

export function rateLimitKeys(group: string, subject: string): [window: string, block: string] {
  const prefix = `rl:${group}:${subject}`;
  return [`${prefix}:win`, `${prefix}:block`];
}

function withTimeout<T>(work: Promise<T>, ms: number): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`Redis did not answer within ${ms} ms`)), ms);
    work.then(resolve, reject).finally(() => clearTimeout(timer));
  });
}

export function createRateLimiter({ redis, logger, now = Date.now, commandTimeoutMs = 500 }: RateLimiterOptions): RateLimiter {
  const log = logger.child({ component: 'rate-limiter' });
  const memory = createMemoryLimiter();
  let outage = false;

  function startOutage(err: unknown): void {
    if (outage) return;
    outage = true;
    log.warn(
      { err: err instanceof Error ? err.message : String(err) },
      'Redis unavailable; rate limits are enforced per process in memory until it answers again',
    );
  }

  function endOutage(): void {
    if (!outage) return;
    outage = false;
    memory.clear();
    log.info('Redis answering again; rate limits are shared again');
  }

  const decide = (limits: GroupLimits, raw: RawDecision, degraded: boolean): Decision => ({
    allowed: raw.allowed,
    limit: limits.perMinute,
    remaining: raw.remaining,
    resetAt: raw.resetAt,
    ...(raw.allowed ? {} : { retryAfterSeconds: raw.retryAfter }),
    degraded,
  });

  async function consumeChain(pools: PoolInput[]): Promise<Decision[]> {
    const at = now();
    if (redis.status === 'ready') {
      try {
        const keys = pools.flatMap((p) => rateLimitKeys(p.pool, p.subject));
        const args = [at, MAX_BLOCK_SECONDS, MAX_BACKOFF_MULTIPLIER, ...pools.flatMap((p) => [p.limits.perMinute, p.limits.perSecond, p.cost ?? 1])];
        const reply = await withTimeout(runChainScript(redis, keys, args), commandTimeoutMs);
        endOutage();
        return reply.map((raw, i) => decide(pools[i]!.limits, raw, false));
      } catch (err) {
        startOutage(err);
      }
    } else {
      startOutage(new Error(`Redis connection is ${redis.status}`));
    }
    const decisions: Decision[] = [];
    for (const { pool, subject, limits, cost = 1 } of pools) {
      const decision = decide(limits, memory.consume(`${pool}:${subject}`, limits, at, cost), true);
      decisions.push(decision);
      if (!decision.allowed) break;
    }
    return decisions;
  }

  async function consumePool({ pool, subject, limits, cost = 1 }: PoolInput): Promise<Decision> {
    const at = now();

    if (redis.status === 'ready') {
      try {
        const args = [at, limits.perMinute, limits.perSecond, MAX_BLOCK_SECONDS, MAX_BACKOFF_MULTIPLIER, cost];
        const raw = await withTimeout(runConsumeScript(redis, rateLimitKeys(pool, subject), args), commandTimeoutMs);
        endOutage();
        return decide(limits, raw, false);
      } catch (err) {
        startOutage(err);
      }
    } else {
      startOutage(new Error(`Redis connection is ${redis.status}`));
    }
    return decide(limits, memory.consume(`${pool}:${subject}`, limits, at, cost), true);
  }

  const consume = ({ subject, group, plan }: ConsumeInput) => consumePool({ pool: group, subject, limits: limitsFor(group, plan) });

  return { consume, consumePool, consumeChain, degraded: () => outage || redis.status !== 'ready' };
}
