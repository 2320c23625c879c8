import { createHash } from 'node:crypto';
import type { Redis } from 'ioredis';
import type { RawDecision } from './memory.js';
import type { Snapshot } from './lease.js';

/**
 * The decision step as a Lua function; SYNC_LUA below calls it for each pool.
 * consume(win, block, now, limit, burst, maxBlock, maxMult, cost) → {allowed 0|1, remaining, resetAt, retryAfter}
 */
const STEPS_LUA = `
-- The first full minute window that starts once the block is over ends here; reaching it is a clean window.
local function cleanAt(untilMs)
  return (math.ceil(untilMs / 60000) + 1) * 60000
end

local function consume(winKey, blockKey, now, limit, burst, maxBlock, maxMult, cost)
  local minute = math.floor(now / 60000)
  local second = math.floor(now / 1000)
  local resetAt = (minute + 1) * 60

  local b = redis.call('HMGET', blockKey, 'until', 'mult', 'viol')
  local untilMs = tonumber(b[1]) or 0
  local mult = tonumber(b[2]) or 1
  local viol = tonumber(b[3]) or 0
  if now >= cleanAt(untilMs) then
    untilMs = 0
    mult = 1
    viol = 0
  end

  if now < untilMs then
    if viol == 0 then
      redis.call('HSET', blockKey, 'mult', math.min(mult * 2, maxMult), 'viol', 1)
    end
    return {0, 0, resetAt, math.max(1, math.ceil((untilMs - now) / 1000))}
  end

  local w = redis.call('HMGET', winKey, 'mw', 'mc', 'sw', 'sc')
  local mc = 0
  local sc = 0
  if tonumber(w[1]) == minute then mc = tonumber(w[2]) or 0 end
  if tonumber(w[3]) == second then sc = tonumber(w[4]) or 0 end

  if mc + cost > limit or sc + cost > burst then
    local waitMs = 0
    if mc + cost > limit then waitMs = resetAt * 1000 - now end
    if sc + cost > burst then waitMs = math.max(waitMs, (second + 1) * 1000 - now) end
    local block = math.min(maxBlock, math.max(1, math.ceil(waitMs / 1000)) * mult)
    untilMs = now + block * 1000
    redis.call('HSET', blockKey, 'until', untilMs, 'mult', mult, 'viol', 0)
    redis.call('PEXPIRE', blockKey, cleanAt(untilMs) - now)
    return {0, 0, resetAt, block}
  end

  mc = mc + cost
  sc = sc + cost
  redis.call('HSET', winKey, 'mw', minute, 'mc', mc, 'sw', second, 'sc', sc)
  redis.call('PEXPIRE', winKey, resetAt * 1000 - now + 1000)
  return {1, limit - mc, resetAt, 0}
end
`;

/**
 * One call for any number of pools (leases: src/rateLimit/lease.ts). First each pool takes back what
 * the process gives back (unused tokens of its lease, from the window they were taken in); then, if
 * asked, the request is decided pool by pool in order, stopping at the first refusal (a pool is counted
 * only when every one before it allowed the request); then, unless it was refused, each pool grants up
 * to the tokens the process wants: what both windows have left, none while a block lasts. Granted
 * tokens are counted at once, so the windows never hold more than their limits, whoever spends them.
 * KEYS    per pool: window hash, block hash
 * ARGV    now (ms), max block (s), max multiplier, decide (0|1), then per pool: limit, burst, cost,
 *         tokens wanted, the given-back tokens' minute and second indexes, and how many to take back
 *         from that minute and from that second
 * Returns 10 numbers per pool: allowed (1, 0, or -1 when not decided), remaining, resetAt, retryAfter,
 *         then mw, mc, sw, sc (the window hash, -1 for an index never set), the block's until (ms) and
 *         the tokens granted.
 */
export const SYNC_LUA = `${STEPS_LUA}
local function takeBack(winKey, minute, second, backMinute, backSecond)
  if backMinute <= 0 and backSecond <= 0 then return end
  local w = redis.call('HMGET', winKey, 'mw', 'mc', 'sw', 'sc')
  if w[1] == false then return end
  local mc = tonumber(w[2]) or 0
  local sc = tonumber(w[4]) or 0
  if tonumber(w[1]) == minute then mc = math.max(0, mc - backMinute) end
  if tonumber(w[3]) == second then sc = math.max(0, sc - backSecond) end
  redis.call('HSET', winKey, 'mc', mc, 'sc', sc)
end

local function grant(winKey, blockKey, now, limit, burst, want)
  if want <= 0 then return 0 end
  if now < (tonumber(redis.call('HGET', blockKey, 'until')) or 0) then return 0 end
  local minute = math.floor(now / 60000)
  local second = math.floor(now / 1000)
  local w = redis.call('HMGET', winKey, 'mw', 'mc', 'sw', 'sc')
  local mc = 0
  local sc = 0
  if tonumber(w[1]) == minute then mc = tonumber(w[2]) or 0 end
  if tonumber(w[3]) == second then sc = tonumber(w[4]) or 0 end
  local granted = math.min(want, limit - mc, burst - sc)
  if granted <= 0 then return 0 end
  redis.call('HSET', winKey, 'mw', minute, 'mc', mc + granted, 'sw', second, 'sc', sc + granted)
  redis.call('PEXPIRE', winKey, (minute + 1) * 60000 - now + 1000)
  return granted
end

local now = tonumber(ARGV[1])
local maxBlock = tonumber(ARGV[2])
local maxMult = tonumber(ARGV[3])
local deciding = tonumber(ARGV[4]) == 1
local refused = false
local pools = #KEYS / 2
local function arg(i, n) return tonumber(ARGV[5 + i * 8 + n]) end
for i = 0, pools - 1 do
  takeBack(KEYS[1 + i * 2], arg(i, 4), arg(i, 5), arg(i, 6), arg(i, 7))
end
local decisions = {}
for i = 0, pools - 1 do
  local d = {-1, 0, 0, 0}
  if deciding and not refused then
    d = consume(KEYS[1 + i * 2], KEYS[2 + i * 2], now, arg(i, 0), arg(i, 1), maxBlock, maxMult, arg(i, 2))
    if d[1] == 0 then refused = true end
  end
  decisions[i + 1] = d
end
local out = {}
for i = 0, pools - 1 do
  local granted = 0
  if not refused then granted = grant(KEYS[1 + i * 2], KEYS[2 + i * 2], now, arg(i, 0), arg(i, 1), arg(i, 3)) end
  local w = redis.call('HMGET', KEYS[1 + i * 2], 'mw', 'mc', 'sw', 'sc')
  local untilMs = redis.call('HGET', KEYS[2 + i * 2], 'until')
  for _, v in ipairs(decisions[i + 1]) do out[#out + 1] = v end
  out[#out + 1] = tonumber(w[1]) or -1
  out[#out + 1] = tonumber(w[2]) or 0
  out[#out + 1] = tonumber(w[3]) or -1
  out[#out + 1] = tonumber(w[4]) or 0
  out[#out + 1] = tonumber(untilMs) or 0
  out[#out + 1] = granted
end
return out
`;

const SYNC_SHA = createHash('sha1').update(SYNC_LUA).digest('hex');

/** EVALSHA, and EVAL once when the server does not have the script cached (NOSCRIPT). */
async function runScript(redis: Redis, lua: string, sha: string, keys: readonly string[], args: readonly number[]): Promise<unknown> {
  try {
    return await redis.evalsha(sha, keys.length, ...keys, ...args);
  } catch (err) {
    // Redis error replies carry no code other than their leading word; NOSCRIPT is the protocol's.
    if (!(err instanceof Error) || !err.message.startsWith('NOSCRIPT')) throw err;
    return redis.eval(lua, keys.length, ...keys, ...args);
  }
}

/** One pool's answer from SYNC_LUA: the decision when one was asked for and reached, its state, the tokens granted. */
export interface SyncReply {
  decision?: RawDecision;
  snapshot: Snapshot;
  granted: number;
}

export async function runSyncScript(redis: Redis, keys: readonly string[], args: readonly number[]): Promise<SyncReply[]> {
  const reply = await runScript(redis, SYNC_LUA, SYNC_SHA, keys, args);
  if (!Array.isArray(reply) || reply.length !== (keys.length / 2) * 10 || !reply.every((n) => typeof n === 'number')) {
    throw new Error(`Unexpected rate-limit script reply: ${JSON.stringify(reply)}`);
  }
  const n = reply;
  const pools: SyncReply[] = [];
  for (let i = 0; i < n.length; i += 10) {
    const [allowed, remaining, resetAt, retryAfter, mw, mc, sw, sc, until, granted] = n.slice(i, i + 10) as [number, number, number, number, number, number, number, number, number, number];
    pools.push({
      ...(allowed === -1 ? {} : { decision: { allowed: allowed === 1, remaining, resetAt, retryAfter } }),
      snapshot: { mw, mc, sw, sc, until },
      granted,
    });
  }
  return pools;
}
