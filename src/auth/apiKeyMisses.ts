import type { Redis } from 'ioredis';
import type { Logger } from '../logger.js';
import type { ApiError } from '../errors.js';

export const KEY_CREATED_CHANNEL = 'api-keys:created';
/** How long an unknown or deleted key is answered from memory without a database query. */
export const KEY_MISS_TTL_MS = 5_000;
const MAX_ENTRIES = 20_000;

/**
 * Remembers, for a few seconds, API keys the database did not know (or knew as deleted), by their
 * keyed hash, so a flood of one forged key costs one query. Keys are random, so a miss for a key
 * that is created later is all but impossible; creating a key still forgets its hash here and, over
 * Redis, in every other process. A look-up that overlaps the creation of its key is not remembered
 * (`generation`, `createdAt`), so the miss it saw cannot outlive the key's creation; creations of
 * other keys meanwhile do not matter. Nor is one that overlaps a reconnection, across which
 * creations may have gone unheard.
 */
export class ApiKeyMisses {
  private readonly misses = new Map<string, { error: ApiError; expiresAt: number }>();
  /** Counts creations heard and reconnections. */
  private generation = 0;
  /** The generation of the last reconnection, or of the last time createdAt was emptied. */
  private forgottenAt = 0;
  /** The generation at which each key heard of since forgottenAt was created. */
  private readonly createdAt = new Map<string, number>();

  constructor(private readonly deps: { redis: Redis; subscriber: Redis; logger: Logger }) {
    deps.subscriber.on('message', (channel: string, hash: string) => {
      if (channel === KEY_CREATED_CHANNEL) this.forgetHere(hash);
    });
    // Creations announced while we were disconnected are lost: forget everything.
    deps.subscriber.on('ready', () => this.forgetAll());
  }

  async start(): Promise<void> {
    await this.deps.subscriber.subscribe(KEY_CREATED_CHANNEL);
  }

  /** The stored answer for a recent miss, if any. */
  lookup(hash: string): ApiError | undefined {
    const hit = this.misses.get(hash);
    if (!hit) return undefined;
    if (hit.expiresAt > Date.now()) return hit.error;
    this.misses.delete(hash);
    return undefined;
  }

  /** Call before the database look-up; pass the result to `remember`. */
  begin(): number {
    return this.generation;
  }

  remember(hash: string, error: ApiError, startedAt: number): void {
    if (startedAt < this.forgottenAt || (this.createdAt.get(hash) ?? -1) > startedAt) return;
    if (this.misses.size >= MAX_ENTRIES) this.misses.clear();
    this.misses.set(hash, { error, expiresAt: Date.now() + KEY_MISS_TTL_MS });
  }

  /** A key with this hash now exists: forget it here at once and in every other process. */
  async created(hash: string): Promise<void> {
    this.forgetHere(hash);
    try {
      await this.deps.redis.publish(KEY_CREATED_CHANNEL, hash);
    } catch (err) {
      this.deps.logger.warn({ err }, `could not announce a new key; other processes may refuse it for up to ${KEY_MISS_TTL_MS} ms`);
    }
  }

  private forgetHere(hash: string): void {
    this.generation += 1;
    this.misses.delete(hash);
    // Bounded: emptied, it is as if a reconnection had happened (overlapping look-ups are not remembered).
    if (this.createdAt.size >= MAX_ENTRIES) this.forgetAll();
    else this.createdAt.set(hash, this.generation);
  }

  private forgetAll(): void {
    this.generation += 1;
    this.forgottenAt = this.generation;
    this.createdAt.clear();
    this.misses.clear();
  }
}
