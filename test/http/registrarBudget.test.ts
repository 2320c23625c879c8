import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../support/testApp.js';
import { bearer, jsonHeaders, sessionToken, uniqueEmail } from '../support/actors.js';
import { readJson, type MessageErrorBody } from '../support/http.js';
import { FakeDnsimple } from '../support/fakeDnsimple.js';
import { randomBase62 } from '../../src/ids.js';
import { withinOneMinuteWindow } from '../support/rateWindows.js';

type Slot = { name: string; available?: boolean; error?: { code: string; detail: string; retry_after?: number } };

const names = (n: number, label: string) => Array.from({ length: n }, (_, i) => `${label}-${i}-${randomBase62(6).toLowerCase()}.com`);
const bulk = (app: TestApp, token: string, list: string[]) =>
  app.fetch('/api/v1/domains/availability/bulk', { method: 'POST', headers: jsonHeaders(token), body: JSON.stringify({ names: list }) });

let dnsimple: FakeDnsimple;
beforeAll(async () => {
  dnsimple = await FakeDnsimple.start();
});
afterAll(async () => dnsimple?.close());

const registrarEnv = (perMinute: number) => ({
  REGISTRAR_URL: dnsimple.url,
  REGISTRAR_ACCOUNT: dnsimple.accountId,
  REGISTRAR_TOKEN: dnsimple.token,
  REGISTRAR_CHECK_PER_MINUTE: String(perMinute),
});

describe("the registrar's check endpoint, shared by every process", () => {
  // DNSimple's registrar.md: `check` has stricter limits than the rest of the API and is not for volume.
  it('is paced across processes; names not reached in time answer UPSTREAM_RATE_LIMITED in their slot, and a retry finishes them', async () => {
    const [a, b] = [await startTestApp({ env: registrarEnv(240) }), await startTestApp({ env: registrarEnv(240) })];
    try {
      const checks = () => dnsimple.requests.filter((r) => r.method === 'GET' && r.path.endsWith('/check'));
      const before = checks().length;
      const [listA, listB] = [names(40, 'paced-a'), names(40, 'paced-b')];
      const started = Date.now();
      const [resA, resB] = await Promise.all([
        bulk(a, await sessionToken(a, uniqueEmail('pa')), listA),
        bulk(b, await sessionToken(b, uniqueEmail('pb')), listB),
      ]);
      // Far sooner than pacing all 80 names would take (20 s): names past what fits in time are not waited for.
      expect(Date.now() - started).toBeLessThan(15_000);
      expect([resA.status, resB.status]).toEqual([200, 200]);
      const slots = [...(await readJson<{ results: Slot[] }>(resA)).results, ...(await readJson<{ results: Slot[] }>(resB)).results];
      const sent = checks().slice(before);
      // One call every 250 ms for the two processes together, within the 3 s ahead a bulk call may book.
      expect(sent.length).toBeGreaterThanOrEqual(6);
      // Each bulk call books at most 3 s ahead of its arrival (13 calls), however far apart the two arrive.
      expect(sent.length).toBeLessThanOrEqual(2 * 13);
      const times = sent.map((r) => r.at!).sort((x, y) => x - y);
      // Evenly spaced, give or take a busy machine's timers (a call sent late comes close to the next,
      // on-time one): never two at once, and never a burst, any five calls spanning most of a second.
      expect((times.at(-1)! - times[0]!) / (times.length - 1)).toBeGreaterThanOrEqual(240);
      for (let i = 1; i < times.length; i++) expect(times[i]! - times[i - 1]!).toBeGreaterThanOrEqual(50);
      for (let i = 4; i < times.length; i++) expect(times[i]! - times[i - 4]!).toBeGreaterThanOrEqual(750);
      const answered = slots.filter((s) => s.available !== undefined);
      const later = slots.filter((s) => s.error);
      expect(answered).toHaveLength(sent.length);
      expect(later.length).toBe(80 - sent.length);
      for (const slot of later) {
        expect(slot.error).toMatchObject({ code: 'UPSTREAM_RATE_LIMITED', retry_after: expect.any(Number) });
        expect(slot.error!.retry_after).toBeGreaterThanOrEqual(1);
      }

      // A single check still finds a slot while bulk calls keep the queue full.
      const [busyToken, singleToken] = [await sessionToken(a, uniqueEmail('pd')), await sessionToken(a, uniqueEmail('pe'))];
      const checksBefore = checks().length;
      let busyDone = false;
      const busy = bulk(a, busyToken, names(40, 'paced-d')).finally(() => (busyDone = true));
      // The bulk call is under way once the registrar has seen its first check.
      for (const until = Date.now() + 10_000; checks().length === checksBefore && Date.now() < until; ) await new Promise((resolve) => setTimeout(resolve, 10));
      expect(checks().length).toBeGreaterThan(checksBefore);
      const single = await a.fetch(`/api/v1/domains/availability?name=${names(1, 'single')[0]}`, { headers: bearer(singleToken) });
      expect(single.status).toBe(200);
      // …answered while the bulk call still held the queue.
      expect(busyDone).toBe(false);
      await busy;
      const sentBefore = checks().length;

      // Asking again for names already answered costs the registrar nothing (shared 60 s cache).
      const again = await bulk(b, await sessionToken(b, uniqueEmail('pc')), answered.map((s) => s.name));
      expect((await readJson<{ results: Slot[] }>(again)).results.every((s) => s.available !== undefined)).toBe(true);
      expect(checks().length).toBe(sentBefore);
    } finally {
      await Promise.all([a.close(), b.close()]);
    }
  });
});

describe("a user's registrar budget", () => {
  it('counts a live bulk call of N names as N, for all of the user\'s credentials together', async () => {
    const app = await startTestApp({ env: registrarEnv(100_000) });
    try {
      const email = uniqueEmail('budget');
      // Both calls and the last check in one minute window: a new window rightly has a budget again.
      await withinOneMinuteWindow(15_000);
      const first = await bulk(app, await sessionToken(app, email), names(300, 'budget'));
      expect(first.status).toBe(200);
      // Another session of the same user: the budget is the user's, not the session's.
      const second = await bulk(app, await sessionToken(app, email), names(300, 'budget'));
      expect(second.status).toBe(429);
      const body = await readJson<MessageErrorBody>(second);
      expect(body.code).toBe('RATE_LIMITED');
      expect(body.detail).toContain('counted per name');
      expect(body.detail).toContain('500 per minute');
      expect(second.headers.get('retry-after')).toMatch(/^[1-9]\d*$/);
      // Test mode never reaches the registrar and is not counted.
      const testKeyRes = await app.fetch('/api/v1/me/api-keys', {
        method: 'POST',
        headers: jsonHeaders(await sessionToken(app, email)),
        body: JSON.stringify({ name: 't', scopes: ['domains:read'], mode: 'test' }),
      });
      const { key } = await readJson<{ key: string }>(testKeyRes);
      expect((await bulk(app, key, names(300, 'budget-test'))).status).toBe(200);
      expect((await app.fetch('/api/v1/domains/availability?name=one-more.com', { headers: bearer(await sessionToken(app, email)) })).status).toBe(429);
    } finally {
      await app.close();
    }
  });
});
