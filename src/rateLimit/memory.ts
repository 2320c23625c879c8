import type { GroupLimits } from './groups.js';
import { MAX_BACKOFF_MULTIPLIER, MAX_BLOCK_SECONDS } from './groups.js';

/** What one decision yields, from Redis or from memory; `retryAfter` is 0 when allowed. */
export interface RawDecision {
  allowed: boolean;
  remaining: number;
  resetAt: number;
  retryAfter: number;
}

interface Entry {
  /** Minute window index and the requests allowed in it. */
  mw: number;
  mc: number;
  /** Second window index and the requests allowed in it. */
  sw: number;
  sc: number;
  /** Blocked until this time (ms); the multiplier the next block uses; whether this block was violated. */
  until: number;
  mult: number;
  viol: boolean;
  /** Nothing in the entry matters after this (the Redis keys' TTLs); pruning drops it then. */
  expiresAt: number;
}

const PRUNE_EVERY_MS = 60_000;

/** The end of the first full minute window that starts once a block is over. */
const cleanAt = (untilMs: number) => (Math.ceil(untilMs / 60_000) + 1) * 60_000;

/**
 * The per-process fallback used while Redis is unreachable: the Lua script in script.ts, step for
 * step, over a Map. Entries past their expiry are swept at most once a minute, on the next call.
 */
export function createMemoryLimiter() {
  const entries = new Map<string, Entry>();
  let lastPrune = 0;

  function prune(now: number): void {
    if (now - lastPrune < PRUNE_EVERY_MS) return;
    lastPrune = now;
    for (const [key, entry] of entries) if (entry.expiresAt <= now) entries.delete(key);
  }

  function consume(key: string, limits: GroupLimits, now: number, cost = 1): RawDecision {
    prune(now);
    const minute = Math.floor(now / 60_000);
    const second = Math.floor(now / 1_000);
    const resetAt = (minute + 1) * 60;

    let e = entries.get(key);
    if (!e) {
      e = { mw: minute, mc: 0, sw: second, sc: 0, until: 0, mult: 1, viol: false, expiresAt: 0 };
      entries.set(key, e);
    }
    if (now >= cleanAt(e.until)) {
      e.until = 0;
      e.mult = 1;
      e.viol = false;
    }

    if (now < e.until) {
      if (!e.viol) {
        e.mult = Math.min(e.mult * 2, MAX_BACKOFF_MULTIPLIER);
        e.viol = true;
      }
      return { allowed: false, remaining: 0, resetAt, retryAfter: Math.max(1, Math.ceil((e.until - now) / 1_000)) };
    }

    if (e.mw !== minute) [e.mw, e.mc] = [minute, 0];
    if (e.sw !== second) [e.sw, e.sc] = [second, 0];

    if (e.mc + cost > limits.perMinute || e.sc + cost > limits.perSecond) {
      let waitMs = 0;
      if (e.mc + cost > limits.perMinute) waitMs = resetAt * 1_000 - now;
      if (e.sc + cost > limits.perSecond) waitMs = Math.max(waitMs, (second + 1) * 1_000 - now);
      const block = Math.min(MAX_BLOCK_SECONDS, Math.max(1, Math.ceil(waitMs / 1_000)) * e.mult);
      e.until = now + block * 1_000;
      e.viol = false;
      e.expiresAt = Math.max(e.expiresAt, cleanAt(e.until));
      return { allowed: false, remaining: 0, resetAt, retryAfter: block };
    }

    e.mc += cost;
    e.sc += cost;
    e.expiresAt = Math.max(e.expiresAt, resetAt * 1_000 + 1_000);
    return { allowed: true, remaining: limits.perMinute - e.mc, resetAt, retryAfter: 0 };
  }

  return {
    consume,
    /** Forgets everything: Redis is back and holds the state again. */
    clear: () => entries.clear(),
    size: () => entries.size,
  };
}
