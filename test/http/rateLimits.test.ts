import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { defineRoute } from '../../src/http/route.js';
import { CLOSED_PORT_URL, startTestApp, type TestApp } from '../support/testApp.js';
import { bearer, createKey, createOrg, jsonHeaders, sessionToken, uniqueEmail } from '../support/actors.js';
import { readJson, type MessageErrorBody } from '../support/http.js';
import { holdableClock } from '../support/manualClock.js';

const groupRoute = (group: 'bulk' | 'availability') =>
  defineRoute({
    method: 'post',
    path: `/test/${group}`,
    operationId: `test${group}`,
    summary: `Counts against the ${group} group`,
    tags: ['test'],
    scope: 'domains:read',
    rateLimitGroup: group,
    responses: { 200: { description: 'OK' } },
    handler: (ctx) => {
      ctx.body = { ok: true };
    },
  });

// Burst windows are the clock's seconds: each burst is sent with the limiter's clock held at the start
// of a second, so it is decided in that one window however long a busy machine takes to answer it.
const clock = holdableClock();
let app: TestApp;
beforeAll(async () => {
  app = await startTestApp({ extraRoutes: [groupRoute('bulk'), groupRoute('availability')], rateLimitClock: clock.now });
});
afterAll(async () => app?.close());

const createOrgRequest = (token: string) =>
  app.fetch('/api/v1/orgs', { method: 'POST', headers: jsonHeaders(token), body: '{"name":"Burst"}' });

/** n requests at once. */
const burst = (n: number, request: () => Promise<Response>) => Promise.all(Array.from({ length: n }, request));

/** Org creations at once, one more than the write burst (10) has left this second: the one refusal. */
async function refusedBurst(token: string, size = 11): Promise<Response> {
  const answers = await burst(size, () => createOrgRequest(token));
  expect(answers.filter((res) => res.status === 429)).toHaveLength(1);
  return answers.find((res) => res.status === 429)!;
}

describe('rate limits', () => {
  it('puts the limit headers on every authenticated response, counting down, resetting in the future', async () => {
    const token = await sessionToken(app, uniqueEmail('headers'));
    const first = await app.fetch('/api/v1/me', { headers: bearer(token) });
    const second = await app.fetch('/api/v1/me', { headers: bearer(token) });
    expect(first.headers.get('x-ratelimit-limit')).toBe('300');
    expect(Number(second.headers.get('x-ratelimit-remaining'))).toBe(Number(first.headers.get('x-ratelimit-remaining')) - 1);
    const reset = Number(second.headers.get('x-ratelimit-reset'));
    expect(reset).toBeGreaterThan(Date.now() / 1000);
    expect(reset).toBeLessThanOrEqual(Date.now() / 1000 + 61);
    const notFound = await app.fetch('/api/v1/orgs/org_nope', { headers: bearer(token) });
    expect(notFound.status).toBe(403);
    expect(notFound.headers.get('x-ratelimit-remaining')).not.toBeNull();
  });

  it('refuses the write burst past 10 per second with 429, RATE_LIMITED and an integer Retry-After', async () => {
    const token = await sessionToken(app, uniqueEmail('burst'));
    const responses = await clock.held(() => burst(15, () => createOrgRequest(token)));
    const statuses = responses.map((r) => r.status).sort();
    expect(statuses.filter((s) => s === 201)).toHaveLength(10);
    expect(statuses.filter((s) => s === 429)).toHaveLength(5);
    const refused = responses.find((r) => r.status === 429)!;
    expect(refused.headers.get('retry-after')).toMatch(/^[1-9]\d*$/);
    expect(refused.headers.get('x-ratelimit-limit')).toBe('60');
    expect(refused.headers.get('x-ratelimit-remaining')).toBe('0');
    const body = await readJson<MessageErrorBody>(refused);
    expect(body.code).toBe('RATE_LIMITED');
    expect(body.detail).toContain('60 per minute, 10 per second');
  });

  it('widens the block when the caller retries before Retry-After, and lets it back in after waiting', async () => {
    const token = await sessionToken(app, uniqueEmail('eager'));
    await clock.held(async () => {
      const first = Number((await refusedBurst(token)).headers.get('retry-after'));
      expect(first).toBeGreaterThanOrEqual(1);
      expect((await createOrgRequest(token)).status).toBe(429); // too early: the next block doubles
      clock.advance(first * 1000 + 100);
      expect((await createOrgRequest(token)).status).toBe(201);
      const secondBlock = await refusedBurst(token, 10);
      expect(Number(secondBlock.headers.get('retry-after'))).toBeGreaterThanOrEqual(2 * first);
    });
  });

  it('keeps bulk in its own pool: exhausting it leaves single availability untouched', async () => {
    const token = await sessionToken(app, uniqueEmail('bulk'));
    const bulk = await clock.held(() => burst(3, () => app.fetch('/test/bulk', { method: 'POST', headers: bearer(token) })));
    expect(bulk.map((r) => r.status).sort()).toEqual([200, 200, 429]);
    expect(bulk[0]!.headers.get('x-ratelimit-limit')).toBe('10');
    const single = await app.fetch('/test/availability', { method: 'POST', headers: bearer(token) });
    expect(single.status).toBe(200);
    expect(single.headers.get('x-ratelimit-limit')).toBe('600');
  });

  it('counts two API keys of one user apart', async () => {
    const session = await sessionToken(app, uniqueEmail('twokeys'));
    const keyA = await createKey(app, session, { name: 'a', scopes: ['orgs:write'] });
    const keyB = await createKey(app, session, { name: 'b', scopes: ['orgs:write'] });
    const withA = await clock.held(() => burst(11, () => createOrgRequest(keyA.key)));
    expect(withA.filter((r) => r.status === 429)).toHaveLength(1);
    expect((await createOrgRequest(keyB.key)).status).toBe(201);
  });

  it("scales limits by the organisation's plan on its paths, for its members only", async () => {
    const token = await sessionToken(app, uniqueEmail('pro'));
    const org = await createOrg(app, token);
    await app.deps.db.query(`UPDATE organizations SET plan = 'pro' WHERE id = $1`, [org.id]);
    const member = await app.fetch(`/api/v1/orgs/${org.id}`, { headers: bearer(token) });
    expect(member.headers.get('x-ratelimit-limit')).toBe('1500');
    // A stranger learns neither that the organisation exists nor its plan: the same answer as for none.
    const stranger = await sessionToken(app, uniqueEmail('other'));
    const probes = [];
    for (const orgId of [org.id, 'org_doesnotexist0000000000']) {
      const res = await app.fetch(`/api/v1/orgs/${orgId}`, { headers: bearer(stranger) });
      probes.push([res.status, res.headers.get('x-ratelimit-limit'), await res.json()]);
    }
    expect(probes[0]).toEqual(probes[1]);
    expect(probes[0]![1]).toBe('300');
  });

  it('admits a caller on each organisation’s paths at that organisation’s limits: what it took on an enterprise one’s never serves a pro one’s', async () => {
    const token = await sessionToken(app, uniqueEmail('twoplans'));
    const [enterprise, pro] = [await createOrg(app, token), await createOrg(app, token)];
    await app.deps.db.query(`UPDATE organizations SET plan = 'enterprise' WHERE id = $1`, [enterprise.id]);
    await app.deps.db.query(`UPDATE organizations SET plan = 'pro' WHERE id = $1`, [pro.id]);
    const read = async (orgId: string) => {
      const res = await app.fetch(`/api/v1/orgs/${orgId}`, { headers: bearer(token) });
      expect(res.status).toBe(200);
      return [Number(res.headers.get('x-ratelimit-limit')), Number(res.headers.get('x-ratelimit-remaining'))];
    };
    // The enterprise path's first read is decided by Redis, which leases this process some of its burst.
    expect(await read(enterprise.id)).toEqual([6000, 5999]);
    // The pro path's reads count in a window of their own, at pro limits, however many follow.
    expect(await read(pro.id)).toEqual([1500, 1499]);
    for (let i = 0; i < 10; i += 1) {
      const [limit, remaining] = await read(pro.id);
      expect([limit, remaining! < 1500]).toEqual([1500, true]);
    }
  });

  it('holds all keys and sessions of one user to three times one pool', async () => {
    // Four keys of a new user, each sending ten writes in one second (held: the key creations spent
    // some of the second before it).
    const session = await sessionToken(app, uniqueEmail('manykeys'));
    const keys: { key: string }[] = [];
    for (const name of ['a', 'b', 'c', 'd']) keys.push(await createKey(app, session, { name, scopes: ['orgs:write'] }));
    const answers = await clock.held(() => Promise.all(keys.flatMap((key) => Array.from({ length: 10 }, () => createOrgRequest(key.key)))));
    expect(answers.filter((r) => r.status === 201)).toHaveLength(30);
    const refused = answers.filter((r) => r.status === 429);
    expect(refused).toHaveLength(10);
    const body = await readJson<MessageErrorBody>(refused[0]!);
    expect(body.detail).toContain('all of your keys and sessions together');
    expect(body.detail).toContain('180 per minute, 30 per second');
  });
});

describe('rate limits with Redis unreachable', () => {
  it('keeps serving with the in-process limiter and says so in /readyz', async () => {
    const degraded = await startTestApp({ env: { REDIS_URL: CLOSED_PORT_URL }, rateLimitClock: clock.now });
    try {
      const token = await sessionToken(degraded, uniqueEmail('noredis'));
      const res = await degraded.fetch('/api/v1/me', { headers: bearer(token) });
      expect(res.status).toBe(200);
      expect(res.headers.get('x-ratelimit-limit')).toBe('300');
      const answers = await clock.held(() => burst(11, () => degraded.fetch('/api/v1/orgs', { method: 'POST', headers: jsonHeaders(token), body: '{"name":"x"}' })));
      expect(answers.map((r) => r.status).filter((s) => s === 429)).toHaveLength(1);
      const ready = await readJson<{ checks: Record<string, string> }>(await degraded.fetch('/readyz'));
      expect(ready.checks.rate_limiter).toBe('down');
    } finally {
      await degraded.close();
    }
  });
});
