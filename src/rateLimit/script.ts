import { createHash } from 'node:crypto';
import type { Redis } from 'ioredis';
import type { RawDecision } from './memory.js';

/**
 * The whole decision in one atomic script; limiter.ts documents the algorithm and memory.ts is its
 * line-for-line twin for when Redis is away. The caller passes the time, so tests can move the clock.
 *
 * KEYS[1] window hash  { mw: minute index, mc: count in it, sw: second index, sc: count in it }
 * KEYS[2] block hash   { until: blocked until (ms), mult: back-off multiplier, viol: 1 once this block was violated }
 * ARGV    now (ms), per-minute limit, per-second burst, max block (s), max multiplier, cost (default 1)
 * Returns { allowed 0|1, remaining, resetAt (unix s), retryAfter (s, 0 when allowed) }
 */
export const CONSUME_LUA = `
local now = tonumber(ARGV[1])
local limit = tonumber(ARGV[2])
local burst = tonumber(ARGV[3])
local maxBlock = tonumber(ARGV[4])
local maxMult = tonumber(ARGV[5])
local cost = tonumber(ARGV[6]) or 1

local minute = math.floor(now / 60000)
local second = math.floor(now / 1000)
local resetAt = (minute + 1) * 60

-- The first full minute window that starts once the block is over ends here; reaching it is a clean window.
local function cleanAt(untilMs)
  return (math.ceil(untilMs / 60000) + 1) * 60000
end

local b = redis.call('HMGET', KEYS[2], 'until', 'mult', 'viol')
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
    redis.call('HSET', KEYS[2], 'mult', math.min(mult * 2, maxMult), 'viol', 1)
  end
  return {0, 0, resetAt, math.max(1, math.ceil((untilMs - now) / 1000))}
end

local w = redis.call('HMGET', KEYS[1], 'mw', 'mc', 'sw', 'sc')
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
  redis.call('HSET', KEYS[2], 'until', untilMs, 'mult', mult, 'viol', 0)
  redis.call('PEXPIRE', KEYS[2], cleanAt(untilMs) - now)
  return {0, 0, resetAt, block}
end

mc = mc + cost
sc = sc + cost
redis.call('HSET', KEYS[1], 'mw', minute, 'mc', mc, 'sw', second, 'sc', sc)
redis.call('PEXPIRE', KEYS[1], resetAt * 1000 - now + 1000)
return {1, limit - mc, resetAt, 0}
`;

/**
 * Whether the subject is inside a block, without counting anything (the failed-authentication gate
 * asks before it spends an HMAC and a database query). A request that arrives while blocked doubles
 * the next block, as in CONSUME_LUA step 3. KEYS[1] block hash; ARGV now (ms), max multiplier.
 * Returns Retry-After in seconds, 0 when not blocked.
 */
export const BLOCKED_LUA = `
local now = tonumber(ARGV[1])
local maxMult = tonumber(ARGV[2])
local b = redis.call('HMGET', KEYS[1], 'until', 'mult', 'viol')
local untilMs = tonumber(b[1]) or 0
if now >= untilMs then return 0 end
if (tonumber(b[3]) or 0) == 0 then
  redis.call('HSET', KEYS[1], 'mult', math.min((tonumber(b[2]) or 1) * 2, maxMult), 'viol', 1)
end
return math.max(1, math.ceil((untilMs - now) / 1000))
`;

const CONSUME_SHA = createHash('sha1').update(CONSUME_LUA).digest('hex');
const BLOCKED_SHA = createHash('sha1').update(BLOCKED_LUA).digest('hex');

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

export async function runBlockedScript(redis: Redis, blockKey: string, args: readonly number[]): Promise<number> {
  const reply = await runScript(redis, BLOCKED_LUA, BLOCKED_SHA, [blockKey], args);
  if (typeof reply !== 'number') throw new Error(`Unexpected rate-limit script reply: ${JSON.stringify(reply)}`);
  return reply;
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
