import type { Redis } from 'ioredis';

/**
 * Ceilings on what every caller together may do a second to one shared resource (the ACME-DNS zone's
 * changes), counted in Redis by every api process. Unlike the rate limiter's pools they have no block
 * and no back-off: a refusal there is no one caller's fault, so no one is made to wait longer for it,
 * and each ceiling is whole again when the next second starts.
 */
export interface Ceiling {
  name: string;
  perSecond: number;
}

/** Refused at the first ceiling already reached (its 1-based index); else each is counted once: 0. */
const TAKE = `
for i = 1, #KEYS do
  if tonumber(redis.call('GET', KEYS[i]) or '0') >= tonumber(ARGV[i]) then return i end
end
for i = 1, #KEYS do
  redis.call('INCR', KEYS[i])
  redis.call('PEXPIRE', KEYS[i], 2000)
end
return 0`;

export class SharedCeilings {
  /** While Redis does not answer: this process's own counts, for the current second only. */
  private readonly local = new Map<string, number>();
  private localSecond = 0;

  constructor(
    private readonly redis: Redis,
    private readonly now: () => number = Date.now,
  ) {}

  /** The first of `ceilings` this second has already reached, or undefined when the request was counted on all of them. */
  async take(ceilings: readonly Ceiling[]): Promise<Ceiling | undefined> {
    const second = Math.floor(this.now() / 1000);
    const keys = ceilings.map((c) => `ceiling:${c.name}:${second}`);
    let refused: number;
    try {
      refused = Number(await this.redis.eval(TAKE, keys.length, ...keys, ...ceilings.map((c) => c.perSecond)));
    } catch {
      refused = this.takeLocally(second, keys, ceilings);
    }
    return refused === 0 ? undefined : ceilings[refused - 1];
  }

  private takeLocally(second: number, keys: string[], ceilings: readonly Ceiling[]): number {
    if (second !== this.localSecond) {
      this.local.clear();
      this.localSecond = second;
    }
    const full = keys.findIndex((key, i) => (this.local.get(key) ?? 0) >= ceilings[i]!.perSecond);
    if (full >= 0) return full + 1;
    for (const key of keys) this.local.set(key, (this.local.get(key) ?? 0) + 1);
    return 0;
  }
}
