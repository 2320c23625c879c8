import type { Redis } from 'ioredis';
import type { Logger } from '../logger.js';

/**
 * Spaces calls to an upstream endpoint evenly at `perMinute`, across every process (GCRA: Redis
 * keeps the theoretical arrival time of the next call; each caller takes the next free slot and
 * waits for it). A caller that would wait longer than it can is told when to come back instead.
 * KEYS[1] next free slot (ms); ARGV now (ms), interval (ms), longest acceptable wait (ms).
 * Returns {1, wait ms} with the slot taken, or {0, wait ms} with nothing taken.
 */
const PACE_LUA = `
local now = tonumber(ARGV[1])
local interval = tonumber(ARGV[2])
local maxWait = tonumber(ARGV[3])
local tat = tonumber(redis.call('GET', KEYS[1])) or now
if tat < now then tat = now end
local wait = tat - now
if wait > maxWait then return {0, wait} end
redis.call('SET', KEYS[1], tat + interval, 'PX', math.ceil(wait + interval) + 1000)
return {1, wait}
`;

export type PaceDecision = { granted: true; waitMs: number } | { granted: false; retryAfterSeconds: number };

export interface UpstreamPacer {
  /** Takes the next slot if it comes within `maxWaitMs`; the caller then waits `waitMs` and calls. */
  reserve(maxWaitMs: number): Promise<PaceDecision>;
}

/** `waitMs`: until the slot taken, or (not granted) until the caller may ask again. */
export interface KeyedPaceDecision {
  granted: boolean;
  waitMs: number;
}

/** One pace per key (`pace:<name>:<key>`), each at `perMinute`: e.g. one per destination. */
export interface KeyedPacer {
  reserve(key: string, maxWaitMs: number): Promise<KeyedPaceDecision>;
}

/** Slots kept per process while Redis is away; past ones are dropped when there are more. */
const LOCAL_KEYS = 10_000;

function createPace(props: { redis: Redis; logger: Logger; name: string; perMinute: number; now?: () => number }) {
  const { redis, name, now = Date.now } = props;
  const interval = 60_000 / props.perMinute;
  // While Redis is away each process paces alone (so the budget is per process for that time).
  const localTat = new Map<string, number>();
  let warned = false;

  function reserveLocally(key: string, at: number, maxWaitMs: number): KeyedPaceDecision {
    const tat = Math.max(localTat.get(key) ?? 0, at);
    if (tat - at > maxWaitMs) return { granted: false, waitMs: tat - at };
    if (localTat.size >= LOCAL_KEYS) for (const [old, slot] of localTat) if (slot < at) localTat.delete(old);
    localTat.set(key, tat + interval);
    return { granted: true, waitMs: tat - at };
  }

  return async (key: string, maxWaitMs: number): Promise<KeyedPaceDecision> => {
    const at = now();
    if (redis.status === 'ready') {
      try {
        const reply = (await redis.eval(PACE_LUA, 1, key, at, interval, Math.max(0, maxWaitMs))) as [number, number];
        warned = false;
        return { granted: reply[0] === 1, waitMs: reply[1] };
      } catch (err) {
        if (!warned) props.logger.warn({ err, name }, 'Redis unavailable; upstream calls are paced per process');
        warned = true;
      }
    }
    return reserveLocally(key, at, maxWaitMs);
  };
}

export function createUpstreamPacer(props: { redis: Redis; logger: Logger; name: string; perMinute: number; now?: () => number }): UpstreamPacer {
  const pace = createPace(props);
  const key = `pace:${props.name}`;
  return {
    async reserve(maxWaitMs) {
      const decision = await pace(key, maxWaitMs);
      return decision.granted ? { granted: true, waitMs: decision.waitMs } : { granted: false, retryAfterSeconds: Math.max(1, Math.ceil(decision.waitMs / 1_000)) };
    },
  };
}

export function createKeyedPacer(props: { redis: Redis; logger: Logger; name: string; perMinute: number; now?: () => number }): KeyedPacer {
  const pace = createPace(props);
  return { reserve: (key, maxWaitMs) => pace(`pace:${props.name}:${key}`, maxWaitMs) };
}
