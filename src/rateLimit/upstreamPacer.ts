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

export function createUpstreamPacer(props: { redis: Redis; logger: Logger; name: string; perMinute: number; now?: () => number }): UpstreamPacer {
  const { redis, name, perMinute, now = Date.now } = props;
  const interval = 60_000 / perMinute;
  const key = `pace:${name}`;
  // While Redis is away each process paces alone (so the budget is per process for that time).
  let localTat = 0;
  let warned = false;

  const decide = (granted: boolean, waitMs: number): PaceDecision =>
    granted ? { granted: true, waitMs } : { granted: false, retryAfterSeconds: Math.max(1, Math.ceil(waitMs / 1_000)) };

  return {
    async reserve(maxWaitMs) {
      const at = now();
      if (redis.status === 'ready') {
        try {
          const reply = (await redis.eval(PACE_LUA, 1, key, at, interval, Math.max(0, maxWaitMs))) as [number, number];
          warned = false;
          return decide(reply[0] === 1, reply[1]);
        } catch (err) {
          if (!warned) props.logger.warn({ err, name }, 'Redis unavailable; upstream calls are paced per process');
          warned = true;
        }
      }
      const tat = Math.max(localTat, at);
      if (tat - at > maxWaitMs) return decide(false, tat - at);
      localTat = tat + interval;
      return decide(true, tat - at);
    },
  };
}
