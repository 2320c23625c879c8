/**
 * Rate limiter: one decision per request, per (subject, group), against counts shared in Redis.
 *
 * Most requests of a busy pool are decided in process, on credit (credit.ts): a process that has heard
 * from Redis about a pool admits up to `credit` (5 % of the burst) requests Redis has not counted yet,
 * and reports them in the background. So with N api processes a pool admits at most its limit plus
 * (N − 1) × credit in any minute or second window; one process alone is exact. Every refusal, block
 * and back-off below is decided by the script, as is every request of a pool without credit (a burst
 * under 40) or that the process cannot admit on its own.
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
import { runSyncScript, type SyncReply } from './script.js';
import { creditFor, FLUSH_INTERVAL_MS, NO_CARRY, PoolCredit } from './credit.js';

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
  /** Sends Redis now what this process admitted on credit and has not reported yet (at shutdown; tests). */
  flush(): void;
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

const key = (p: Pick<PoolInput, 'pool' | 'subject'>) => `${p.pool}:${p.subject}`;
const PRUNE_EVERY_MS = 60_000;
/** Pools per background call to Redis. */
const FLUSH_BATCH = 64;
const NOT_DECIDING: GroupLimits = { perMinute: 0, perSecond: 0 };

export function createRateLimiter({ redis, logger, now = Date.now, commandTimeoutMs = 500 }: RateLimiterOptions): RateLimiter {
  const log = logger.child({ component: 'rate-limiter' });
  const memory = createMemoryLimiter();
  /** Pools this process has heard of from Redis and may decide on credit (src/rateLimit/credit.ts). */
  const credits = new Map<string, PoolCredit>();
  const unsent = new Set<PoolCredit>();
  let flushTimer: NodeJS.Timeout | undefined;
  let lastPrune = 0;
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
    credits.clear();
    unsent.clear();
    log.info('Redis answering again; rate limits are shared again');
  }

  const decide = (limits: GroupLimits, raw: RawDecision, degraded: boolean): Decision => {
    const decision: Decision = { allowed: raw.allowed, limit: limits.perMinute, remaining: raw.remaining, resetAt: raw.resetAt, degraded };
    if (!raw.allowed) decision.retryAfterSeconds = raw.retryAfter;
    return decision;
  };

  function prune(at: number): void {
    if (at - lastPrune < PRUNE_EVERY_MS) return;
    lastPrune = at;
    for (const [k, state] of credits) if (state.idleAt(at)) credits.delete(k);
  }

  /**
   * One script call: sends each pool's carry, decides the request when `deciding`, and updates (or,
   * for a pool with credit, starts) what this process knows of each pool from the reply.
   */
  async function exchange(pools: PoolInput[], deciding: boolean, at: number): Promise<SyncReply[]> {
    const states = pools.map((p) => credits.get(key(p)));
    const carries = states.map((state, i) => state?.take(at, deciding ? (pools[i]!.cost ?? 1) : 0) ?? NO_CARRY);
    const keys = pools.flatMap((p) => rateLimitKeys(p.pool, p.subject));
    const args = [at, MAX_BLOCK_SECONDS, MAX_BACKOFF_MULTIPLIER, deciding ? 1 : 0];
    pools.forEach((p, i) => {
      const c = carries[i]!;
      args.push(p.limits.perMinute, p.limits.perSecond, p.cost ?? 1, c.minute, c.second, c.addMinute, c.addSecond);
    });
    let replies: SyncReply[];
    try {
      replies = await withTimeout(runSyncScript(redis, keys, args), commandTimeoutMs);
    } catch (err) {
      states.forEach((state, i) => state?.lost(carries[i]!));
      throw err;
    }
    replies.forEach((reply, i) => {
      let state = states[i];
      if (!state && deciding && creditFor(pools[i]!.limits) > 0) {
        state = credits.get(key(pools[i]!)) ?? new PoolCredit(pools[i]!.pool, pools[i]!.subject);
        state.roll(at);
        credits.set(key(state), state);
      }
      state?.learn(carries[i]!, reply.snapshot);
    });
    return replies;
  }

  /** Sends every pool's unsent counts, in batches; a failure is an outage like any other. */
  function flush(): void {
    if (flushTimer) clearTimeout(flushTimer);
    flushTimer = undefined;
    const at = now();
    const states = [...unsent].filter((s) => s.hasPending());
    unsent.clear();
    for (let i = 0; i < states.length; i += FLUSH_BATCH) {
      const batch = states.slice(i, i + FLUSH_BATCH).map((s) => ({ pool: s.pool, subject: s.subject, limits: NOT_DECIDING, cost: 0 }));
      exchange(batch, false, at).catch(startOutage);
    }
  }

  /**
   * The whole request on credit, when every pool allows it here (src/rateLimit/credit.ts); undefined
   * sends it to Redis. Nothing is counted unless all pools admit it.
   */
  function onCredit(pools: PoolInput[], at: number): Decision[] | undefined {
    if (outage || redis.status !== 'ready') return undefined;
    const states: PoolCredit[] = [];
    for (const p of pools) {
      const state = credits.get(key(p));
      const credit = creditFor(p.limits);
      if (!state || credit === 0 || !state.canAdmit(p.limits, credit, p.cost ?? 1, at)) return undefined;
      states.push(state);
    }
    let due = false;
    const decisions = pools.map((p, i): Decision => {
      const state = states[i]!;
      const remaining = state.admit(p.limits, p.cost ?? 1);
      unsent.add(state);
      due ||= state.dueNow(creditFor(p.limits));
      return { allowed: true, limit: p.limits.perMinute, remaining, resetAt: (state.minute + 1) * 60, degraded: false };
    });
    if (due) flush();
    else flushTimer ??= setTimeout(flush, FLUSH_INTERVAL_MS).unref();
    return decisions;
  }

  async function consumeChain(pools: PoolInput[]): Promise<Decision[]> {
    const at = now();
    prune(at);
    const local = onCredit(pools, at);
    if (local) return local;
    if (redis.status === 'ready') {
      try {
        const replies = await exchange(pools, true, at);
        endOutage();
        return replies.flatMap((reply, i) => (reply.decision ? [decide(pools[i]!.limits, reply.decision, false)] : []));
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

  const consumePool = async (input: PoolInput): Promise<Decision> => (await consumeChain([input]))[0]!;

  const consume = ({ subject, group, plan }: ConsumeInput) => consumePool({ pool: group, subject, limits: limitsFor(group, plan) });

  return { consume, consumePool, consumeChain, flush, degraded: () => outage || redis.status !== 'ready' };
}
