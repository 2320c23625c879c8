import type { Redis } from 'ioredis';
import { randomBase62 } from '../../ids.js';

/**
 * How long a stream's slot lasts unless renewed: an api process that dies frees its streams' slots
 * within this (docs/api-guide.md, Webhooks and events). Streams renew theirs every third of it.
 */
export const SLOT_TTL_MS = 60_000;

/** Expired slots are dropped, then one is taken if fewer than the limit are held; 1 if taken. */
const TAKE = `
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', ARGV[1])
if redis.call('ZCARD', KEYS[1]) >= tonumber(ARGV[3]) then return 0 end
redis.call('ZADD', KEYS[1], ARGV[2], ARGV[4])
redis.call('PEXPIRE', KEYS[1], ARGV[5])
return 1`;

/**
 * The event streams an organisation holds open, counted across every api process in Redis: a sorted
 * set of slot ids scored by when each expires.
 */
export class EventStreamSlots {
  constructor(
    private readonly redis: Redis,
    private readonly perOrg: number,
  ) {}

  private key(orgId: string): string {
    return `event-streams:${orgId}`;
  }

  /** A slot for a new stream, or undefined when the organisation holds as many as it may. */
  async take(orgId: string): Promise<string | undefined> {
    const slot = randomBase62(16);
    const now = Date.now();
    const taken = await this.redis.eval(TAKE, 1, this.key(orgId), now, now + SLOT_TTL_MS, this.perOrg, slot, SLOT_TTL_MS * 2);
    return taken === 1 ? slot : undefined;
  }

  /** Keeps a live stream's slot; false when it was lost (expired while Redis was away). */
  async renew(orgId: string, slot: string): Promise<boolean> {
    const changed = await this.redis.zadd(this.key(orgId), 'XX', 'CH', Date.now() + SLOT_TTL_MS, slot);
    return Number(changed) === 1;
  }

  async release(orgId: string, slot: string): Promise<void> {
    await this.redis.zrem(this.key(orgId), slot);
  }

  get limit(): number {
    return this.perOrg;
  }
}
