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
