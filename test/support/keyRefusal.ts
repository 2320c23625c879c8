import type { TestApp } from './testApp.js';
import { bearer } from './actors.js';
import { readJson, type MessageErrorBody } from './http.js';
import { timeUntilSeen } from './propagation.js';

export interface KeyRefusal {
  /** When the last request the key still passed was sent, from `started` (test/support/propagation.ts); 0 when the first was refused. */
  lastAcceptedSentMs: number;
  /** Milliseconds from `started` until the first refusal came back (for the log). */
  refusedMs: number;
  code: string;
}

/** Polls `app` with the API key every 10 ms, for at most 5 s from `started`, until it answers 401. */
export async function timeUntilRefused(app: TestApp, key: string, started: number): Promise<KeyRefusal> {
  let code = 'still accepted';
  const { lastMissSentMs, seenMs } = await timeUntilSeen(
    started,
    async () => {
      const res = await app.fetch('/api/v1/me', { headers: bearer(key) });
      if (res.status !== 401) return false;
      code = (await readJson<MessageErrorBody>(res)).code;
      return true;
    },
    10,
  );
  return { lastAcceptedSentMs: lastMissSentMs, refusedMs: seenMs, code };
}
