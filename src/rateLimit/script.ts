import { createHash } from 'node:crypto';
import type { Redis } from 'ioredis';
import type { RawDecision } from './memory.js';
import type { Snapshot } from './credit.js';

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
 * One call for any number of pools: first each pool's carry (what this process admitted on its own
 * credit, src/rateLimit/credit.ts) is added to its windows; then, if asked, the request is decided
 * pool by pool in order, stopping at the first refusal (a pool is counted only when every one before
 * it allowed the request); last, each pool's state is read back for the process's credit.
 * KEYS    per pool: window hash, block hash
 * ARGV    now (ms), max block (s), max multiplier, decide (0|1), then per pool: limit, burst, cost,
 *         carry minute index, carry second index, count to add to that minute, count to add to that second
 * Returns 9 numbers per pool: allowed (1, 0, or -1 when not decided), remaining, resetAt, retryAfter,
 *         then mw, mc, sw, sc (the window hash, -1 for an index never set) and the block's until (ms).
 */
export const SYNC_LUA = `${STEPS_LUA}
local function addCarry(winKey, now, cm, cs, am, as)
  if am == 0 and as == 0 then return end
  local w = redis.call('HMGET', winKey, 'mw', 'mc', 'sw', 'sc')
  local mw = tonumber(w[1]) or -1
  local mc = tonumber(w[2]) or 0
  local sw = tonumber(w[3]) or -1
  local sc = tonumber(w[4]) or 0
  if cm > mw then mw = cm; mc = 0 end
  if cm == mw then mc = mc + am end
  if cs > sw then sw = cs; sc = 0 end
  if cs == sw then sc = sc + as end
  redis.call('HSET', winKey, 'mw', mw, 'mc', mc, 'sw', sw, 'sc', sc)
  local ttl = (mw + 1) * 60000 - now + 1000
  if ttl > 0 then redis.call('PEXPIRE', winKey, ttl) end
end

local now = tonumber(ARGV[1])
local maxBlock = tonumber(ARGV[2])
local maxMult = tonumber(ARGV[3])
local refused = tonumber(ARGV[4]) ~= 1
local pools = #KEYS / 2
for i = 0, pools - 1 do
  local a = 5 + i * 7
  addCarry(KEYS[1 + i * 2], now, tonumber(ARGV[a + 3]), tonumber(ARGV[a + 4]), tonumber(ARGV[a + 5]), tonumber(ARGV[a + 6]))
end
local out = {}
for i = 0, pools - 1 do
  local a = 5 + i * 7
  local d = {-1, 0, 0, 0}
  if not refused then
    d = consume(KEYS[1 + i * 2], KEYS[2 + i * 2], now, tonumber(ARGV[a]), tonumber(ARGV[a + 1]), maxBlock, maxMult, tonumber(ARGV[a + 2]))
    if d[1] == 0 then refused = true end
  end
  local w = redis.call('HMGET', KEYS[1 + i * 2], 'mw', 'mc', 'sw', 'sc')
  local untilMs = redis.call('HGET', KEYS[2 + i * 2], 'until')
  for _, v in ipairs(d) do out[#out + 1] = v end
  out[#out + 1] = tonumber(w[1]) or -1
  out[#out + 1] = tonumber(w[2]) or 0
  out[#out + 1] = tonumber(w[3]) or -1
  out[#out + 1] = tonumber(w[4]) or 0
  out[#out + 1] = tonumber(untilMs) or 0
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

/** One pool's answer from SYNC_LUA: the decision when one was asked for and reached, and its state. */
export interface SyncReply {
  decision?: RawDecision;
  snapshot: Snapshot;
}

export async function runSyncScript(redis: Redis, keys: readonly string[], args: readonly number[]): Promise<SyncReply[]> {
  const reply = await runScript(redis, SYNC_LUA, SYNC_SHA, keys, args);
  if (!Array.isArray(reply) || reply.length !== (keys.length / 2) * 9 || !reply.every((n) => typeof n === 'number')) {
    throw new Error(`Unexpected rate-limit script reply: ${JSON.stringify(reply)}`);
  }
  const n = reply;
  const pools: SyncReply[] = [];
  for (let i = 0; i < n.length; i += 9) {
    const [allowed, remaining, resetAt, retryAfter, mw, mc, sw, sc, until] = n.slice(i, i + 9) as [number, number, number, number, number, number, number, number, number];
    pools.push({
      ...(allowed === -1 ? {} : { decision: { allowed: allowed === 1, remaining, resetAt, retryAfter } }),
      snapshot: { mw, mc, sw, sc, until },
    });
  }
  return pools;
}
