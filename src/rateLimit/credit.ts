import type { GroupLimits } from './groups.js';

/**
 * Credit: how a process decides most requests without asking Redis (docs/operations.md, Rate limits
 * across api processes). A process that has heard from Redis about a pool may admit requests of it on
 * its own, counting them here, while fewer than `credit` of them are still unreported; the counts are
 * sent to Redis in the background (every FLUSH_INTERVAL_MS, or at once when half the credit is used),
 * and each reply brings back every process's counts and any block. Anything this process cannot
 * admit on its own (credit used, its estimate at the limit, a known block, no news of the pool yet)
 * goes to Redis, which alone refuses, blocks and widens blocks, exactly as without credit.
 *
 * Worst case: a process admits at most `credit` requests of a pool beyond what Redis has counted, so
 * in any one window (a minute, or a second for the burst) N processes together admit at most
 * limit + (N − 1) × credit. A process alone is exact: its own counts are never stale.
 * Credit is CREDIT_SHARE of the burst, so the overshoot per other process is at most 5 % of the
 * burst in each second and in each minute; pools whose credit would be below MIN_CREDIT (a free plan's
 * read, write and bulk, the per-address pools) get none and are decided in Redis every time, as before.
 */
export const CREDIT_SHARE = 0.05;
export const MIN_CREDIT = 2;
/** How long a counted request waits at most before Redis hears of it (when the credit is not half used first). */
export const FLUSH_INTERVAL_MS = 20;

export function creditFor(limits: GroupLimits): number {
  const credit = Math.floor(limits.perSecond * CREDIT_SHARE);
  return credit >= MIN_CREDIT ? credit : 0;
}

/**
 * Counts this process sends Redis: requests admitted here in `minute` (of which `addSecond` in
 * `second`); and `deciding`, the cost of the request the same call asks Redis to decide, which this
 * process counts as admitted until the reply says (it stays here: Redis counts it when it decides).
 */
export interface Carry {
  minute: number;
  second: number;
  addMinute: number;
  addSecond: number;
  deciding: number;
}

export const NO_CARRY: Carry = { minute: 0, second: 0, addMinute: 0, addSecond: 0, deciding: 0 };

/** A pool's state in Redis right after a call: window indexes and counts, and the block's end (ms). */
export interface Snapshot {
  mw: number;
  mc: number;
  sw: number;
  sc: number;
  until: number;
}

/** One pool as this process knows it; windows are aligned as in the Lua script (src/rateLimit/limiter.ts). */
export class PoolCredit {
  minute = -1;
  second = -1;
  /** Redis's counts for the current windows, as of the last reply. */
  private knownMinute = 0;
  private knownSecond = 0;
  /** Admitted here and not yet sent. */
  private pendingMinute = 0;
  private pendingSecond = 0;
  /** Sent and not yet acknowledged. */
  private sentMinute = 0;
  private sentSecond = 0;
  /**
   * Requests this process has asked Redis to decide and not yet heard back about: without them, its
   * own requests in flight would be missing from its estimate, and the credit it grants meanwhile
   * could take a window past limit + credit (src/rateLimit/credit.test.ts, two processes).
   */
  private decidingMinute = 0;
  private decidingSecond = 0;
  private blockedUntil = 0;

  constructor(
    readonly pool: string,
    readonly subject: string,
  ) {}

  /** Moves to the windows of `now`; counts of a window that ended no longer matter. */
  roll(now: number): void {
    const minute = Math.floor(now / 60_000);
    const second = Math.floor(now / 1_000);
    if (minute !== this.minute) [this.minute, this.knownMinute, this.pendingMinute, this.sentMinute, this.decidingMinute] = [minute, 0, 0, 0, 0];
    if (second !== this.second) [this.second, this.knownSecond, this.pendingSecond, this.sentSecond, this.decidingSecond] = [second, 0, 0, 0, 0];
  }

  /** Whether this process may admit `cost` more on its own: credit left, no known block, under both limits as far as it knows. */
  canAdmit(limits: GroupLimits, credit: number, cost: number, now: number): boolean {
    this.roll(now);
    if (now < this.blockedUntil) return false;
    const unreported = this.pendingMinute + this.sentMinute;
    return (
      unreported + cost <= credit &&
      this.knownMinute + unreported + this.decidingMinute + cost <= limits.perMinute &&
      this.knownSecond + this.pendingSecond + this.sentSecond + this.decidingSecond + cost <= limits.perSecond
    );
  }

  /** Counts an admitted request; returns what is left of the minute as far as this process knows. */
  admit(limits: GroupLimits, cost: number): number {
    this.pendingMinute += cost;
    this.pendingSecond += cost;
    return limits.perMinute - (this.knownMinute + this.sentMinute + this.pendingMinute);
  }

  /** True once half the credit is waiting to be sent. */
  dueNow(credit: number): boolean {
    return this.pendingMinute * 2 >= credit;
  }

  hasPending(): boolean {
    return this.pendingMinute > 0;
  }

  /** Idle: nothing unreported, and its minute is over (a new request would ask Redis first). */
  idleAt(now: number): boolean {
    return this.pendingMinute + this.sentMinute === 0 && Math.floor(now / 60_000) > this.minute && now >= this.blockedUntil;
  }

  /**
   * What to send with the next call to Redis; it counts as sent until `learn` or `lost`, and so does
   * `deciding`, the cost of the request that call asks Redis to decide (0 for a flush).
   */
  take(now: number, deciding = 0): Carry {
    this.roll(now);
    const carry = { minute: this.minute, second: this.second, addMinute: this.pendingMinute, addSecond: this.pendingSecond, deciding };
    this.sentMinute += this.pendingMinute;
    this.sentSecond += this.pendingSecond;
    this.decidingMinute += deciding;
    this.decidingSecond += deciding;
    this.pendingMinute = 0;
    this.pendingSecond = 0;
    return carry;
  }

  /** Redis applied `carry` and answered `snapshot` (replies come in the order calls were sent). */
  learn(carry: Carry, snapshot: Snapshot): void {
    this.forget(carry);
    if (snapshot.mw === this.minute) this.knownMinute = snapshot.mc;
    if (snapshot.sw === this.second) this.knownSecond = snapshot.sc;
    this.blockedUntil = snapshot.until;
  }

  /**
   * The call carrying `carry` failed or timed out: its counts are dropped, not sent again (Redis may
   * have applied them; while it does not answer, limits are per process anyway).
   */
  lost(carry: Carry): void {
    this.forget(carry);
  }

  private forget(carry: Carry): void {
    if (carry.minute === this.minute) [this.sentMinute, this.decidingMinute] = [this.sentMinute - carry.addMinute, this.decidingMinute - carry.deciding];
    if (carry.second === this.second) [this.sentSecond, this.decidingSecond] = [this.sentSecond - carry.addSecond, this.decidingSecond - carry.deciding];
  }
}
