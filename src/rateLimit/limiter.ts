/**
 * Rate limiter: one decision per request, per (subject, group), against counts shared in Redis.
 *
 * Most requests of a busy pool are decided in process, on a lease (lease.ts): tokens the process took
 * from Redis in a batch (5 % of the burst), counted there when taken, so any number of api processes
 * together never admit more than a window's limit. Every refusal, block and back-off below is decided
 * by the script, as is every request of a pool without a lease (a burst under 40) or that the process
 * cannot admit on its own (lease spent, a block it knows of).
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
import { leaseFor, NO_LEASE_CALL, PoolLease, type LeaseCall, type LeaseCallKind } from './lease.js';

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
  /** Gives Redis back every token this process leased and has not spent, and leases no more (at shutdown). */
  giveBackLeases(): Promise<void>;
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
const sameLimits = (a: GroupLimits, b: GroupLimits) => a.perMinute === b.perMinute && a.perSecond === b.perSecond;
const PRUNE_EVERY_MS = 60_000;
/** Pools per background call to Redis. */
const BACKGROUND_BATCH = 64;

export function createRateLimiter({ redis, logger, now = Date.now, commandTimeoutMs = 500 }: RateLimiterOptions): RateLimiter {
  const log = logger.child({ component: 'rate-limiter' });
  const memory = createMemoryLimiter();
  /** Pools this process holds leases of (src/rateLimit/lease.ts). */
  const leases = new Map<string, PoolLease>();
  /** Leases with something for a background call: a top-up to ask for, tokens to give back. */
  const due = new Set<PoolLease>();
  /** Fires once a second while leases are held, so a lease nobody spends goes back when its second ends. */
  let sweepTimer: NodeJS.Timeout | undefined;
  let lastPrune = 0;
  let outage = false;
  let givingBack = false;

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
    // Leases taken before are not spent: their windows count them until they end.
    leases.clear();
    due.clear();
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
    for (const [k, lease] of leases) if (lease.idleAt(at)) leases.delete(k);
  }

  /**
   * The lease of a pool, made on first use when the pool gets one (none once shutdown began). Its limits
   * follow the latest request: a plan can change, and a lease taken under a larger plan still goes back
   * with the next call.
   */
  function leaseOf(p: PoolInput): PoolLease | undefined {
    let lease = leases.get(key(p));
    if (!lease && (givingBack || leaseFor(p.limits) === 0)) return undefined;
    if (!lease) leases.set(key(p), (lease = new PoolLease(p.pool, p.subject, p.limits)));
    lease.limits = p.limits;
    return lease;
  }

  /**
   * One script call: gives back and asks for each pool's tokens (`kind`; once shutdown began, only gives
   * back), and decides the request when `kind` is 'decide'. Replies update each lease.
   */
  async function exchange(pools: PoolInput[], kind: LeaseCallKind, at: number): Promise<SyncReply[]> {
    const held = pools.map(leaseOf);
    const calls: LeaseCall[] = held.map((lease) => (lease ? lease.take(at, givingBack ? 'give-back' : kind, leaseFor(lease.limits)) : NO_LEASE_CALL));
    const keys = pools.flatMap((p) => rateLimitKeys(p.pool, p.subject));
    const args = [at, MAX_BLOCK_SECONDS, MAX_BACKOFF_MULTIPLIER, kind === 'decide' ? 1 : 0];
    pools.forEach((p, i) => {
      const c = calls[i]!;
      args.push(p.limits.perMinute, p.limits.perSecond, p.cost ?? 1, c.want, c.minute, c.second, c.backMinute, c.backSecond);
    });
    // A request that finds a lease spent waits for the call bringing it tokens, until this call's reply
    // has been learnt, before asking Redis itself.
    let settle!: () => void;
    const settled = new Promise<void>((resolve) => (settle = resolve));
    held.forEach((lease, i) => {
      if (lease && calls[i]!.want > 0) lease.incoming = settled;
    });
    let replies: SyncReply[];
    try {
      try {
        replies = await withTimeout(runSyncScript(redis, keys, args), commandTimeoutMs);
      } catch (err) {
        held.forEach((lease, i) => lease?.lost(calls[i]!));
        throw err;
      }
      replies.forEach((reply, i) => {
        const lease = held[i];
        if (!lease) return;
        lease.learn(calls[i]!, reply.snapshot, reply.granted);
        // Granted by a call sent before shutdown began, or for a second that has ended since: straight back.
        if ((givingBack && lease.holds()) || lease.hasUnspent()) due.add(lease);
      });
    } finally {
      for (const lease of held) if (lease?.incoming === settled) lease.incoming = undefined;
      settle();
    }
    if (due.size > 0) void sendDue();
    if (held.some((lease) => lease?.holds())) armSweep();
    return replies;
  }

  /** Tops up and gives back the leases that are due, in batches; a failure is an outage like any other. */
  function sendDue(): Promise<unknown> {
    const at = now();
    const batch = [...due];
    due.clear();
    const sent: Promise<unknown>[] = [];
    for (let i = 0; i < batch.length; i += BACKGROUND_BATCH) {
      const pools = batch.slice(i, i + BACKGROUND_BATCH).map((l) => ({ pool: l.pool, subject: l.subject, limits: l.limits, cost: 0 }));
      sent.push(exchange(pools, 'top-up', at).catch(startOutage));
    }
    return Promise.all(sent);
  }

  function armSweep(): void {
    if (sweepTimer) return;
    sweepTimer = setTimeout(sweep, 1_000 - (now() % 1_000) + 5).unref();
  }

  /** A second has ended: what its leases left unspent goes back to the minute. */
  function sweep(): void {
    sweepTimer = undefined;
    const at = now();
    let holding = false;
    for (const lease of leases.values()) {
      if (!lease.holds()) continue;
      lease.roll(at);
      if (lease.hasUnspent()) due.add(lease);
      holding = true;
    }
    if (due.size > 0) void sendDue();
    if (holding) armSweep();
  }

  /**
   * The whole request on this process's leases, when every pool has the tokens (src/rateLimit/lease.ts);
   * undefined sends it to Redis. Nothing is spent unless every pool has enough.
   */
  function onLease(pools: PoolInput[], at: number): Decision[] | undefined {
    if (outage || givingBack || redis.status !== 'ready') return undefined;
    const held: PoolLease[] = [];
    for (const p of pools) {
      const lease = leases.get(key(p));
      // A lease is spent only on requests under the limits it was taken with; other limits go to Redis,
      // which takes the lease back and decides at them.
      if (!lease || leaseFor(p.limits) === 0 || !sameLimits(lease.limits, p.limits) || !lease.canSpend(p.cost ?? 1, at)) return undefined;
      held.push(lease);
    }
    const decisions = pools.map((p, i): Decision => {
      const lease = held[i]!;
      const remaining = lease.spend(p.cost ?? 1);
      if (lease.due(leaseFor(p.limits))) due.add(lease);
      return { allowed: true, limit: p.limits.perMinute, remaining, resetAt: (lease.minute + 1) * 60, degraded: false };
    });
    if (due.size > 0) void sendDue();
    return decisions;
  }

  async function consumeChain(pools: PoolInput[]): Promise<Decision[]> {
    let at = now();
    prune(at);
    for (;;) {
      const local = onLease(pools, at);
      if (local) return local;
      // A lease spent while tokens for it are on their way: that reply, not a call of our own, comes
      // first; so a process never asks Redis to decide while its own tokens are still arriving.
      const arriving = pools.flatMap((p) => leases.get(key(p))?.incoming ?? []);
      if (arriving.length === 0) break;
      await Promise.all(arriving);
      at = now();
    }
    if (redis.status === 'ready') {
      try {
        const replies = await exchange(pools, 'decide', at);
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

  async function giveBackLeases(): Promise<void> {
    givingBack = true;
    if (sweepTimer) clearTimeout(sweepTimer);
    sweepTimer = undefined;
    for (const lease of leases.values()) if (lease.holds()) due.add(lease);
    await Promise.all([...leases.values()].flatMap((l) => l.incoming ?? []));
    if (due.size > 0) await sendDue();
  }

  const consumePool = async (input: PoolInput): Promise<Decision> => (await consumeChain([input]))[0]!;

  const consume = ({ subject, group, plan }: ConsumeInput) => consumePool({ pool: group, subject, limits: limitsFor(group, plan) });

  return { consume, consumePool, consumeChain, giveBackLeases, degraded: () => outage || redis.status !== 'ready' };
}
