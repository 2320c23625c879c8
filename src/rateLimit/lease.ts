import type { GroupLimits } from './groups.js';

/**
 * Leases: how a process decides most requests without asking Redis (docs/operations.md, Rate limits
 * across api processes). With a request Redis decides, or in the background, a process takes a lease
 * of a busy pool's tokens: Redis counts them in the pool's minute and second windows at once, and the
 * process spends them on its own. Tokens are taken for one second; what is left when it ends is given
 * back to the minute (the second is over anyway), and so is everything at shutdown.
 *
 * Because tokens are counted before they are spent, N processes together never admit more than a
 * window's limit: no overshoot. The cost is the other way: a request Redis refuses may find up to
 * (N − 1) × LEASE_SHARE of the burst leased to other processes and not spent yet. A process alone is
 * exact: it asks Redis to decide a request only once its lease is spent, and gives back what it holds
 * of the request's pools with that call.
 *
 * A lease is LEASE_SHARE of the burst; pools whose lease would be below MIN_LEASE (a free plan's read,
 * write and bulk, the per-address pools) get none and are decided in Redis every time. Every refusal,
 * block and back-off is decided by the script (src/rateLimit/script.ts), and a process that knows of a
 * block spends nothing on its own until it is over.
 */
export const LEASE_SHARE = 0.05;
export const MIN_LEASE = 2;

export function leaseFor(limits: GroupLimits): number {
  const lease = Math.floor(limits.perSecond * LEASE_SHARE);
  return lease >= MIN_LEASE ? lease : 0;
}

/**
 * What one call to Redis asks of a pool and gives back: `want` tokens for the windows of the call's
 * time (`minute`, `second`), and `backMinute` / `backSecond` tokens taken earlier and not spent.
 */
export interface LeaseCall {
  minute: number;
  second: number;
  want: number;
  backMinute: number;
  backSecond: number;
}

export const NO_LEASE_CALL: LeaseCall = { minute: -1, second: -1, want: 0, backMinute: 0, backSecond: 0 };

/** A pool's state in Redis right after a call: window indexes and counts (leased tokens included), and the block's end (ms). */
export interface Snapshot {
  mw: number;
  mc: number;
  sw: number;
  sc: number;
  until: number;
}

/** Why a call is made: to decide a request, to top up a lease in the background, or to give every unspent token back. */
export type LeaseCallKind = 'decide' | 'top-up' | 'give-back';

/** One pool as this process holds it; windows are aligned as in the Lua script (src/rateLimit/script.ts). */
export class PoolLease {
  minute = -1;
  second = -1;
  /** Tokens of this second's lease not spent yet. */
  private left = 0;
  /** Tokens of an earlier second of this minute not spent: counted in the minute until given back. */
  private unspent = 0;
  /** Tokens asked for in calls not answered yet. */
  private wanting = 0;
  /** Tokens of this minute given back in calls not answered yet. */
  private givingBack = 0;
  /** Whether a token was spent since the last call: only then does a background call top the lease up. */
  private spending = false;
  /** Redis's minute count (leases included) as of the last reply. */
  private knownMinute = 0;
  private blockedUntil = 0;
  /**
   * Settles once the call in flight that asks for tokens (a top-up or a deciding call) has been
   * answered and learnt: a request that finds the lease spent waits for it before asking Redis.
   */
  incoming: Promise<unknown> | undefined;

  constructor(
    readonly pool: string,
    readonly subject: string,
    public limits: GroupLimits,
  ) {}

  /** Moves to the windows of `now`: a lease of a second that ended is unspent; a minute that ended no longer matters. */
  roll(now: number): void {
    const minute = Math.floor(now / 60_000);
    const second = Math.floor(now / 1_000);
    if (minute !== this.minute) {
      [this.minute, this.second, this.left, this.unspent, this.givingBack, this.knownMinute] = [minute, second, 0, 0, 0, 0];
    } else if (second !== this.second) {
      [this.second, this.unspent, this.left, this.spending] = [second, this.unspent + this.left, 0, false];
    }
  }

  /** Whether this process may spend `cost` tokens of its own: enough left, and no block it knows of. */
  canSpend(cost: number, now: number): boolean {
    this.roll(now);
    return now >= this.blockedUntil && this.left >= cost;
  }

  /** Spends `cost` tokens; returns what is left of the minute as far as this process knows. */
  spend(cost: number): number {
    this.left -= cost;
    this.spending = true;
    return this.remaining();
  }

  /** What is left of the minute: its limit less Redis's last count, where tokens leased here and not spent do not count as spent. */
  remaining(): number {
    return Math.max(0, this.limits.perMinute - this.knownMinute + this.left + this.unspent + this.givingBack);
  }

  /** True once half the lease is spent and no top-up is on its way, or an earlier second's tokens wait to go back. */
  due(lease: number): boolean {
    return this.unspent > 0 || (this.wanting === 0 && this.left * 2 <= lease);
  }

  /** Tokens leased here and not spent, of this second or an earlier one. */
  holds(): boolean {
    return this.left + this.unspent > 0;
  }

  /** Tokens of a second that has ended, waiting to go back. */
  hasUnspent(): boolean {
    return this.unspent > 0;
  }

  /** Nothing leased, asked for or given back, no block, and its minute is over. */
  idleAt(now: number): boolean {
    return (
      this.left + this.unspent + this.wanting + this.givingBack === 0 && Math.floor(now / 60_000) > this.minute && now >= this.blockedUntil
    );
  }

  /**
   * What to send with the next call: tokens wanted (to deciding calls, and to top-ups of a lease being
   * spent) and tokens given back (all of them with a deciding call or at shutdown). They count as asked for / given back until `learn` or `lost`.
   */
  take(now: number, kind: LeaseCallKind, lease: number): LeaseCall {
    this.roll(now);
    // A request Redis decides finds none of this process's tokens in its windows (they go back first, and
    // come again with the grant): so a process alone is exact, even when a plan change moved the limits.
    const giveAll = kind !== 'top-up';
    const call: LeaseCall = {
      minute: this.minute,
      second: this.second,
      want: 0,
      backMinute: this.unspent + (giveAll ? this.left : 0),
      backSecond: giveAll ? this.left : 0,
    };
    if (giveAll) this.left = 0;
    this.unspent = 0;
    // A background call for a lease nobody spends only gives back: an idle pool is not leased again.
    const wanted = kind === 'decide' || (kind === 'top-up' && this.spending);
    if (wanted && now >= this.blockedUntil) call.want = Math.max(0, lease - this.left - this.wanting);
    this.spending = false;
    this.wanting += call.want;
    this.givingBack += call.backMinute;
    return call;
  }

  /** Redis answered `call` with `snapshot` and `granted` tokens (replies come in the order calls were sent). */
  learn(call: LeaseCall, snapshot: Snapshot, granted: number): void {
    this.settle(call);
    if (call.minute !== this.minute) return;
    if (snapshot.mw === this.minute) this.knownMinute = snapshot.mc;
    this.blockedUntil = snapshot.until;
    // Tokens granted for a second that has ended since are given back with the next call.
    if (call.second === this.second) this.left += granted;
    else this.unspent += granted;
  }

  /**
   * The call failed or timed out: tokens it may have been granted are never spent (the windows count
   * them until they end), and tokens it gave back are not given again, so nothing is counted twice
   * the wrong way.
   */
  lost(call: LeaseCall): void {
    this.settle(call);
  }

  private settle(call: LeaseCall): void {
    this.wanting -= call.want;
    if (call.minute === this.minute) this.givingBack -= call.backMinute;
  }
}
