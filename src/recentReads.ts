/**
 * Reads a process reuses for a short time (a caller's organisations, a membership): each is kept for
 * `ttlMs` from when it began, so a change made elsewhere shows within that bound, and `forget` drops
 * one at once after a change made here. Concurrent callers share one read; a failed read is never
 * kept, nor a value `keep` refuses. At most `maxEntries` are held, the oldest dropped first.
 */
export class RecentReads<V> {
  private readonly entries = new Map<string, { value: Promise<V>; expiresAt: number }>();
  private readonly maxEntries: number;
  private readonly now: () => number;
  private readonly keep: (value: V) => boolean;

  constructor(private readonly ttlMs: number, options: { maxEntries?: number; now?: () => number; keep?: (value: V) => boolean } = {}) {
    this.maxEntries = options.maxEntries ?? 10_000;
    this.now = options.now ?? Date.now;
    this.keep = options.keep ?? (() => true);
  }

  get(key: string, read: () => Promise<V>): Promise<V> {
    const at = this.now();
    const hit = this.entries.get(key);
    if (hit && hit.expiresAt > at) return hit.value;
    this.entries.delete(key);
    // A Map iterates in insertion order: the oldest goes first.
    if (this.entries.size >= this.maxEntries) this.entries.delete(this.entries.keys().next().value!);
    const entry = { value: read(), expiresAt: at + this.ttlMs };
    this.entries.set(key, entry);
    const drop = () => {
      if (this.entries.get(key) === entry) this.entries.delete(key);
    };
    entry.value.then((value) => {
      if (!this.keep(value)) drop();
    }, drop);
    return entry.value;
  }

  /** Call once a change has committed: the next caller reads again. A read already under way is not kept for later callers. */
  forget(key: string): void {
    this.entries.delete(key);
  }
}
