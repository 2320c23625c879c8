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
 * Redis, in every other process. A look-up that overlaps a creation is not remembered
 * (`generation`), so the miss it saw cannot outlive the key's creation.
 */
export class ApiKeyMisses {
  private readonly misses = new Map<string, { error: ApiError; expiresAt: number }>();
  private generation = 0;

  constructor(private readonly deps: { redis: Redis; subscriber: Redis; logger: Logger }) {
    deps.subscriber.on('message', (channel: string, hash: string) => {
      if (channel === KEY_CREATED_CHANNEL) this.forgetHere(hash);
    });
    // Creations announced while we were disconnected are lost: forget everything.
    deps.subscriber.on('ready', () => {
      this.generation += 1;
      this.misses.clear();
    });
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
    if (startedAt !== this.generation) return;
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
  }
}
