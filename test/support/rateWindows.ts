/**
 * Rate limits count per epoch minute (src/rateLimit/script.ts): a test whose requests must all land
 * in one minute window starts once at least `marginMs` of the current minute is left, waiting for
 * the next minute to begin when less is.
 */
export async function withinOneMinuteWindow(marginMs: number): Promise<void> {
  const toNextMinute = 60_000 - (Date.now() % 60_000);
  if (toNextMinute < marginMs) await new Promise((resolve) => setTimeout(resolve, toNextMinute + 50));
}
