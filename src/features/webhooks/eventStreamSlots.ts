import type { Redis } from 'ioredis';
import { randomBase62 } from '../../ids.js';
import type { Mode } from '../../db/modeScope.js';

/**
 * How long a stream's slot lasts unless renewed (EVENT_STREAM_SLOT_TTL): an api process that dies
 * frees its streams' slots within this (docs/api-guide.md, Webhooks and events). Streams renew theirs
 * every third of it.
 */
export const SLOT_TTL_MS = 60_000;

/**
 * KEYS: the organisation's slots in the mode, then the user's there. ARGV: now, expiry of the new
 * slot, the organisation's limit, the user's limit, the slot, the keys' lifetime. Expired slots are
 * dropped; a slot is taken in both sets only if both hold fewer than their limits. 1: taken; 0: the
 * organisation is full; -1: the user is.
 */
const TAKE = `
for _, key in ipairs(KEYS) do redis.call('ZREMRANGEBYSCORE', key, '-inf', ARGV[1]) end
if redis.call('ZCARD', KEYS[1]) >= tonumber(ARGV[3]) then return 0 end
if redis.call('ZCARD', KEYS[2]) >= tonumber(ARGV[4]) then return -1 end
for _, key in ipairs(KEYS) do
  redis.call('ZADD', key, ARGV[2], ARGV[5])
  redis.call('PEXPIRE', key, ARGV[6])
end
return 1`;

/**
 * Renews a slot's expiry in both sets and both keys' lifetimes with it, so a set whose streams all
 * renew never expires under them. ARGV: the new expiry, the slot, the keys' lifetime. 1 when the slot
 * was still held in both (0: lost, e.g. expired while Redis was away).
 */
const RENEW = `
local held = 1
for _, key in ipairs(KEYS) do
  if redis.call('ZSCORE', key, ARGV[2]) then redis.call('ZADD', key, 'XX', ARGV[1], ARGV[2]) else held = 0 end
  redis.call('PEXPIRE', key, ARGV[3])
end
return held`;

export interface StreamSlotLimits {
  perOrg: number;
  perUser: number;
}

/** Whose slots a stream takes: the organisation's in one mode, and one member's among them. */
export interface StreamSlotOwner {
  orgId: string;
  userId: string;
  mode: Mode;
}

export type SlotTaken = { slot: string } | { refused: 'organization' | 'user'; limit: number };

/**
 * The event streams open, counted across every api process in Redis: per organisation and mode, and
 * per user within them, each a sorted set of slot ids scored by when each expires. Test-mode streams
 * never take live-mode slots, and one member cannot take all of an organisation's.
 */
export class EventStreamSlots {
  constructor(
    private readonly redis: Redis,
    /** How long a slot lasts unless renewed; streams renew every third of it (renewEveryMs). */
    readonly ttlMs = SLOT_TTL_MS,
  ) {}

  private keys(owner: StreamSlotOwner): [org: string, user: string] {
    const org = `event-streams:${owner.orgId}:${owner.mode.livemode ? 'live' : 'test'}`;
    return [org, `${org}:user:${owner.userId}`];
  }

  get renewEveryMs(): number {
    return Math.max(1, Math.floor(this.ttlMs / 3));
  }

  /** A slot for a new stream, or which limit refused it. */
  async take(owner: StreamSlotOwner, limits: StreamSlotLimits): Promise<SlotTaken> {
    const slot = randomBase62(16);
    const now = Date.now();
    const taken = await this.redis.eval(TAKE, 2, ...this.keys(owner), now, now + this.ttlMs, limits.perOrg, limits.perUser, slot, this.ttlMs * 2);
    if (taken === 1) return { slot };
    return taken === 0 ? { refused: 'organization', limit: limits.perOrg } : { refused: 'user', limit: limits.perUser };
  }

  /** Keeps a live stream's slot; false when it was lost. */
  async renew(owner: StreamSlotOwner, slot: string): Promise<boolean> {
    const held = await this.redis.eval(RENEW, 2, ...this.keys(owner), Date.now() + this.ttlMs, slot, this.ttlMs * 2);
    return held === 1;
  }

  async release(owner: StreamSlotOwner, slot: string): Promise<void> {
    const [org, user] = this.keys(owner);
    await this.redis.multi().zrem(org, slot).zrem(user, slot).exec();
  }
}
