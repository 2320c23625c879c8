import type { Redis } from 'ioredis';
import type { Db } from '../db/pool.js';
import type { Logger } from '../logger.js';
import { findApiKeyByHash, recordApiKeysLastUsed, type ApiKeyRecord } from './apiKeys.js';
import { findUserById, type User } from './users.js';
import { hashApiKey, parseApiKey } from './apiKeyFormat.js';
import { ApiKeyRevokedError, InvalidTokenError } from './errors.js';

export const KEY_INVALIDATION_CHANNEL = 'api-keys:invalidate';
/**
 * The safety net when an invalidation message is lost (Redis down, a dropped subscription): no entry
 * lives longer, counted from when its database read began, so a deleted or revoked key is refused by
 * every process within this bound, inside the 2 s the contract promises, even without the message.
 */
export const KEY_CACHE_TTL_MS = 1_500;
const LAST_USED_FLUSH_MS = 15_000;
/**
 * Keyed hashes remembered per token: a key's checksum and HMAC cost more than the rest of a cached
 * request's authentication (docs/bench.md). Cleared when full, so forged tokens only cost their hash.
 */
const HASH_MEMO_SIZE = 10_000;

interface CacheEntry {
  record: ApiKeyRecord;
  user: User;
  expiresAt: number;
}

export interface ApiKeyVerifierDeps {
  db: Db;
  redis: Redis;
  subscriber: Redis;
  keyHashSecret: string;
  logger: Logger;
}

/**
 * Verifies API keys with a short in-process cache. Deleting or revoking a key publishes its id on
 * Redis; every process drops it at once, so the key stops working everywhere within moments.
 */
export class ApiKeyVerifier {
  private readonly cache = new Map<string, CacheEntry>();
  /**
   * Raised by every invalidation (and by a reconnect, when some may have been lost). A database read
   * that began under an older generation may predate a deletion that has since been announced, so its
   * answer is never cached: without this, a key deleted while its lookup was in flight would be cached
   * as active for the whole TTL.
   */
  private generation = 0;
  private readonly lastUsed = new Map<string, Date>();
  private readonly hashes = new Map<string, string | undefined>();
  /** What outlives a request and must hear at once when its key changes (an open event stream), by key id. */
  private readonly watchers = new Map<string, Set<() => void>>();
  private readonly flushTimer: NodeJS.Timeout;

  constructor(private readonly deps: ApiKeyVerifierDeps) {
    deps.subscriber.on('message', (channel: string, keyId: string) => {
      if (channel === KEY_INVALIDATION_CHANNEL) this.evict(keyId);
    });
    // Messages sent while we were disconnected are lost: start from an empty cache after reconnecting.
    deps.subscriber.on('ready', () => {
      this.generation += 1;
      this.cache.clear();
      for (const keyWatchers of this.watchers.values()) for (const watcher of keyWatchers) watcher();
    });
    this.flushTimer = setInterval(() => void this.flushLastUsed(), LAST_USED_FLUSH_MS);
    this.flushTimer.unref();
  }

  async start(): Promise<void> {
    await this.deps.subscriber.subscribe(KEY_INVALIDATION_CHANNEL);
  }

  /** The key's record and owner; 401 for a look-alike, an unknown, a deleted or a revoked key. */
  async verify(token: string): Promise<{ record: ApiKeyRecord; user: User }> {
    const hash = this.hashOf(token);
    if (!hash) throw new InvalidTokenError('The API key is malformed');
    return this.verifyHash(hash);
  }

  /** The keyed hash the key is stored under (hex); undefined for a look-alike (bad checksum). */
  hashOf(token: string): string | undefined {
    if (this.hashes.has(token)) return this.hashes.get(token);
    const hash = parseApiKey(token) ? hashApiKey(this.deps.keyHashSecret, token).toString('hex') : undefined;
    if (this.hashes.size >= HASH_MEMO_SIZE) this.hashes.clear();
    this.hashes.set(token, hash);
    return hash;
  }

  /** `verify`, for a key already hashed by `hashOf`. */
  async verifyHash(hash: string): Promise<{ record: ApiKeyRecord; user: User }> {
    const cached = this.cache.get(hash);
    const entry = cached && cached.expiresAt > Date.now() ? cached : await this.load(hash);
    this.lastUsed.set(entry.record.id, new Date());
    return entry;
  }

  /**
   * Calls `onChange` whenever the key is changed, deleted or revoked (here or on another process,
   * told over Redis), and after a reconnection, when such news may have been missed; until the
   * returned function is called. The key's next verify reads it afresh.
   */
  watch(keyId: string, onChange: () => void): () => void {
    let keyWatchers = this.watchers.get(keyId);
    if (!keyWatchers) this.watchers.set(keyId, (keyWatchers = new Set()));
    keyWatchers.add(onChange);
    return () => {
      keyWatchers.delete(onChange);
      if (keyWatchers.size === 0 && this.watchers.get(keyId) === keyWatchers) this.watchers.delete(keyId);
    };
  }

  /** Drops the key here and tells every other process to do the same. */
  async invalidate(keyId: string): Promise<void> {
    this.evict(keyId);
    try {
      await this.deps.redis.publish(KEY_INVALIDATION_CHANNEL, keyId);
    } catch (err) {
      this.deps.logger.warn({ err, keyId }, `could not publish key invalidation; other processes drop it within ${KEY_CACHE_TTL_MS} ms`);
    }
  }

  async close(): Promise<void> {
    clearInterval(this.flushTimer);
    await this.flushLastUsed();
  }

  /**
   * Reads the key from the database. If an invalidation arrived while the read was in flight, it reads
   * once more (that read starts after the announcement, so it sees the deletion); an answer that still
   * overlapped one is returned but not cached.
   */
  private async load(hash: string): Promise<CacheEntry> {
    this.cache.delete(hash);
    const generation = this.generation;
    const entry = await this.read(hash);
    if (generation === this.generation) {
      this.cache.set(hash, entry);
      return entry;
    }
    const again = this.generation;
    const fresh = await this.read(hash);
    if (again === this.generation) this.cache.set(hash, fresh);
    return fresh;
  }

  private async read(hash: string): Promise<CacheEntry> {
    const expiresAt = Date.now() + KEY_CACHE_TTL_MS;
    const record = await findApiKeyByHash(this.deps.db, Buffer.from(hash, 'hex'));
    if (!record) throw new InvalidTokenError('Unknown API key');
    if (record.status === 'revoked') throw new ApiKeyRevokedError(record.revokedReason);
    if (record.status === 'deleted') throw new InvalidTokenError('This API key was deleted');
    const user = await findUserById(this.deps.db, record.userId);
    if (!user) throw new InvalidTokenError('Unknown API key');
    return { record, user, expiresAt };
  }

  private evict(keyId: string): void {
    this.generation += 1;
    for (const [hash, entry] of this.cache) {
      if (entry.record.id === keyId) this.cache.delete(hash);
    }
    for (const watcher of this.watchers.get(keyId) ?? []) watcher();
  }

  /** `last_used_at` is written in batches, not on every request. */
  async flushLastUsed(): Promise<void> {
    if (this.lastUsed.size === 0) return;
    const batch = new Map(this.lastUsed);
    this.lastUsed.clear();
    try {
      await recordApiKeysLastUsed(this.deps.db, batch);
    } catch (err) {
      this.deps.logger.warn({ err }, 'could not record API key use times');
    }
  }
}
