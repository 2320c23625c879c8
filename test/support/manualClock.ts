const MINUTE = 60_000;

/**
 * A clock a rate-limit test moves by hand, for limiters built with `now: clock.now`. It starts on a
 * minute boundary, the next one: never in the past, and with the whole minute ahead, so a test that
 * moves it a second or two stays in that minute (a minute that ends takes its counts and leases with
 * it). Redis expires window hashes in real time, relative to this clock, so a start ahead of real
 * time changes nothing there.
 */
export function manualClock(start = (Math.floor(Date.now() / MINUTE) + 1) * MINUTE) {
  let t = start;
  return { now: () => t, set: (ms: number) => void (t = ms), start };
}

export type ManualClock = ReturnType<typeof manualClock>;

/**
 * Real time that a test can stop, for an app started with `rateLimitClock: clock.now`: `hold` stops it
 * at the start of the next second (or minute), a window no earlier request touched, so a burst sent
 * while held is decided in one window however slowly a loaded machine answers it; `advance` moves the
 * held clock on (past a Retry-After, without waiting for it); `release` lets it run again, never back.
 */
export function holdableClock() {
  let held: number | undefined;
  let offset = 0;
  const now = () => held ?? Date.now() + offset;
  const window = (unit: 'second' | 'minute') => (unit === 'second' ? 1_000 : MINUTE);
  return {
    now,
    hold(unit: 'second' | 'minute' = 'second'): void {
      held = (Math.floor(now() / window(unit)) + 1) * window(unit);
    },
    advance(ms: number): void {
      if (held === undefined) throw new Error('advance moves a held clock');
      held += ms;
    },
    release(): void {
      if (held === undefined) return;
      offset = Math.max(offset, held - Date.now());
      held = undefined;
    },
    /** `work` with the clock held from the start of the next second (or minute), released after. */
    async held<T>(work: () => Promise<T>, unit: 'second' | 'minute' = 'second'): Promise<T> {
      this.hold(unit);
      try {
        return await work();
      } finally {
        this.release();
      }
    },
  };
}

export type HoldableClock = ReturnType<typeof holdableClock>;
