import type { TestApp } from './testApp.js';
import { bearer } from './actors.js';
import { readJson, type MessageErrorBody } from './http.js';

/** Milliseconds from `started` until `app` refuses the API key with 401, polling every 10 ms for at most 5 s. */
export async function timeUntilRefused(app: TestApp, key: string, started: number): Promise<{ ms: number; code: string }> {
  while (Date.now() - started < 5_000) {
    const res = await app.fetch('/api/v1/me', { headers: bearer(key) });
    if (res.status === 401) return { ms: Date.now() - started, code: (await readJson<MessageErrorBody>(res)).code };
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  return { ms: Infinity, code: 'still accepted' };
}
