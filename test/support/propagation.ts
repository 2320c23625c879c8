/**
 * How long a change takes to reach a process, judged as its promise reads: a request sent N ms after
 * the change sees it. What counts is when the last request that did not see it yet was *sent*, not
 * when an answer came back (on a loaded machine a request's own latency would add to that).
 */
export interface Propagation {
  /** Milliseconds from `started` to when the last request that missed the change was sent (0 when none did). */
  lastMissSentMs: number;
  /** Milliseconds from `started` until the answer that saw it came back (for the log); Infinity when none did. */
  seenMs: number;
}

/**
 * Asks `sees` every `everyMs` until it holds, for at most 5 s from `started` (taken before the change
 * was asked for, so neither figure can come out smaller than the truth).
 */
export async function timeUntilSeen(started: number, sees: () => Promise<boolean>, everyMs: number): Promise<Propagation> {
  let lastMissSentMs = 0;
  while (Date.now() - started < 5_000) {
    const sent = Date.now() - started;
    if (await sees()) return { lastMissSentMs, seenMs: Date.now() - started };
    lastMissSentMs = sent;
    await new Promise((resolve) => setTimeout(resolve, everyMs));
  }
  return { lastMissSentMs: Infinity, seenMs: Infinity };
}
