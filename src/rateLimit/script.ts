import { createHash } from 'node:crypto';
import type { Redis } from 'ioredis';
import type { RawDecision } from './memory.js';

/**
 * The decision step as a Lua function; each script below is it plus a few lines calling it.
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
 * The whole decision in one atomic script; limiter.ts documents the algorithm and memory.ts is its
 * line-for-line twin for when Redis is away. The caller passes the time, so tests can move the clock.
 *
 * KEYS[1] window hash  { mw: minute index, mc: count in it, sw: second index, sc: count in it }
 * KEYS[2] block hash   { until: blocked until (ms), mult: back-off multiplier, viol: 1 once this block was violated }
 * ARGV    now (ms), per-minute limit, per-second burst, max block (s), max multiplier, cost (default 1)
 * Returns { allowed 0|1, remaining, resetAt (unix s), retryAfter (s, 0 when allowed) }
 */
export const CONSUME_LUA = `${STEPS_LUA}
return consume(KEYS[1], KEYS[2], tonumber(ARGV[1]), tonumber(ARGV[2]), tonumber(ARGV[3]), tonumber(ARGV[4]), tonumber(ARGV[5]), tonumber(ARGV[6]) or 1)
`;

/**
 * One request's whole rate-limit decision in one round trip: each pool in order (a window and a
 * block key each), stopping at the first refusal, so a pool is counted only when every one before
 * it allowed the request.
 * ARGV now (ms), max block (s), max multiplier, then per pool: limit, burst, cost.
 * Returns 4 numbers per pool decided.
 */
export const CONSUME_CHAIN_LUA = `${STEPS_LUA}
local now = tonumber(ARGV[1])
local maxBlock = tonumber(ARGV[2])
local maxMult = tonumber(ARGV[3])
local out = {}
for i = 0, #KEYS / 2 - 1 do
  local a = 4 + i * 3
  local d = consume(KEYS[1 + i * 2], KEYS[2 + i * 2], now, tonumber(ARGV[a]), tonumber(ARGV[a + 1]), maxBlock, maxMult, tonumber(ARGV[a + 2]))
  for _, v in ipairs(d) do out[#out + 1] = v end
  if d[1] == 0 then return out end
end
return out
`;

const CONSUME_SHA = createHash('sha1').update(CONSUME_LUA).digest('hex');
const CHAIN_SHA = createHash('sha1').update(CONSUME_CHAIN_LUA).digest('hex');

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

export async function runConsumeScript(
  redis: Redis,
  keys: readonly [window: string, block: string],
  args: readonly number[],
): Promise<RawDecision> {
  const reply = await runScript(redis, CONSUME_LUA, CONSUME_SHA, keys, args);
  if (!Array.isArray(reply) || reply.length !== 4 || !reply.every((n) => typeof n === 'number')) {
    throw new Error(`Unexpected rate-limit script reply: ${JSON.stringify(reply)}`);
  }
  const [allowed, remaining, resetAt, retryAfter] = reply as [number, number, number, number];
  return { allowed: allowed === 1, remaining, resetAt, retryAfter };
}

/** What CONSUME_CHAIN_LUA decided: one decision per pool reached. */
export async function runChainScript(redis: Redis, keys: readonly string[], args: readonly number[]): Promise<RawDecision[]> {
  const reply = await runScript(redis, CONSUME_CHAIN_LUA, CHAIN_SHA, keys, args);
  if (!Array.isArray(reply) || reply.length % 4 !== 0 || !reply.every((n) => typeof n === 'number')) {
    throw new Error(`Unexpected rate-limit script reply: ${JSON.stringify(reply)}`);
  }
  const pools: RawDecision[] = [];
  for (let i = 0; i < reply.length; i += 4) {
    pools.push({ allowed: reply[i] === 1, remaining: reply[i + 1]!, resetAt: reply[i + 2]!, retryAfter: reply[i + 3]! });
  }
  return pools;
}
