import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../support/testApp.js';
import { bodyOf, signedInUser, type DashboardUserAgent } from '../support/dashboard.js';
import { defineRoute } from '../../src/http/route.js';
import { clientAddress } from '../../src/http/clientAddress.js';
import { withinOneMinuteWindow } from '../support/rateWindows.js';

/** The address the API decides a caller is at: what its per-address pools and `allowed_ips` use. */
const clientAddressRoute = defineRoute({
  method: 'get',
  path: '/api/v1/test/client-address',
  operationId: 'testClientAddress',
  summary: 'The caller as the API sees it',
  tags: ['test'],
  scope: 'any',
  responses: { 200: { description: 'OK' } },
  hidden: true,
  handler: (ctx) => {
    ctx.body = { address: clientAddress(ctx, app.deps.config.trustProxy) };
  },
});

// Loopback is the trusted proxy in front (test/support/testApp.ts); each browser names its address.
let app: TestApp;
beforeAll(async () => {
  app = await startTestApp({ extraRoutes: [clientAddressRoute] });
});
afterAll(async () => app?.close());

interface Org {
  id: string;
  name: string;
}

const orgsOf = async (user: DashboardUserAgent) => bodyOf<{ data: Org[] }>(await user.call('/dashboard/api/v1/orgs')).data;

describe('CSRF on state-changing calls through the dashboard', () => {
  it('refuses a missing or wrong token, a foreign or missing Origin with 403 CSRF_FAILED, and writes nothing', async () => {
    const user = await signedInUser(app, 'csrf');
    const csrf = await user.csrfToken();
    const attempts: Array<[string, Record<string, string>]> = [
      ['no token', { origin: user.origin }],
      ['wrong token', { origin: user.origin, 'x-csrf-token': `${csrf.slice(0, -1)}${csrf.endsWith('A') ? 'B' : 'A'}` }],
      ['foreign origin', { origin: 'https://evil.example', 'x-csrf-token': csrf }],
      ['no origin', { 'x-csrf-token': csrf }],
    ];
    for (const method of ['POST', 'PATCH', 'DELETE', 'PUT']) {
      for (const [label, headers] of attempts) {
        const res = await user.browser.request(`${app.url}/dashboard/api/v1/orgs`, {
          method,
          headers: { 'content-type': 'application/json', ...headers },
          body: JSON.stringify({ name: `csrf ${label}` }),
        });
        expect({ method, label, status: res.status, code: bodyOf<{ code: string }>(res).code }).toEqual({ method, label, status: 403, code: 'CSRF_FAILED' });
      }
    }
    expect(await orgsOf(user)).toEqual([]);

    const created = await user.call('/dashboard/api/v1/orgs', { method: 'POST', body: { name: 'Allowed' } });
    expect(created.status).toBe(201);
    expect(created.headers.get('location')).toBe(`/dashboard/api/v1/orgs/${bodyOf<Org>(created).id}`);
    expect((await orgsOf(user)).map((org) => org.name)).toEqual(['Allowed']);
  });

  it("does not accept one session's CSRF token for another session", async () => {
    const [alice, mallory] = await Promise.all([signedInUser(app, 'csrf-a'), signedInUser(app, 'csrf-m')]);
    const res = await alice.browser.request(`${app.url}/dashboard/api/v1/orgs`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', origin: alice.origin, 'x-csrf-token': await mallory.csrfToken() },
      body: JSON.stringify({ name: 'Forged' }),
    });
    expect(res.status).toBe(403);
    expect(await orgsOf(alice)).toEqual([]);
  });
});

describe('the proxy', () => {
  it("lets the API see the browser's own address behind a trusted proxy, never one the browser wrote", async () => {
    const user = await signedInUser(app, 'address');
    const seen = async (headers: Record<string, string> = {}) =>
      bodyOf<{ address: string }>(await user.call('/dashboard/api/v1/test/client-address', { headers })).address;
    expect(await seen()).toBe(user.browser.address);
    // The proxy in front appends what it saw; a hop the browser wrote further left is not believed.
    expect(await seen({ 'x-forwarded-for': `203.0.113.9, ${user.browser.address}` })).toBe(user.browser.address);
  });

  it('passes Idempotency-Key through and returns the replay headers', async () => {
    const user = await signedInUser(app, 'idem');
    const send = () => user.call('/dashboard/api/v1/orgs', { method: 'POST', body: { name: 'Once' }, headers: { 'idempotency-key': 'dash-once-1' } });
    const first = await send();
    const second = await send();
    expect([first.status, second.status]).toEqual([201, 201]);
    expect(second.headers.get('idempotent-replayed')).toBe('true');
    expect(bodyOf<Org>(second).id).toBe(bodyOf<Org>(first).id);
    expect(await orgsOf(user)).toHaveLength(1);
  });

  it('passes X-Mode: test through, so the test-data toggle sees and changes test objects only', async () => {
    const user = await signedInUser(app, 'xmode');
    const org = bodyOf<Org>(await user.call('/dashboard/api/v1/orgs', { method: 'POST', body: { name: 'Toggle' } }));
    const test = { 'x-mode': 'test' };
    const topUp = await user.call(`/dashboard/api/v1/orgs/${org.id}/billing/top-ups`, { method: 'POST', body: { amount: 700 }, headers: test });
    expect(topUp.status).toBe(201);
    const balance = async (headers: Record<string, string>) =>
      bodyOf<{ available: number; livemode: boolean }>(await user.call(`/dashboard/api/v1/orgs/${org.id}/billing/balance`, { headers }));
    expect(await balance(test)).toMatchObject({ available: 700, livemode: false });
    expect(await balance({})).toMatchObject({ available: 0, livemode: true });
    const me = bodyOf<{ auth: { mode: string } }>(await user.call('/dashboard/api/v1/me', { headers: test }));
    expect(me.auth.mode).toBe('test');
  });

  it('returns API errors as the API wrote them: 404 for an unknown path, 405 with Allow, 422 with field errors', async () => {
    const user = await signedInUser(app, 'errors');
    const unknown = await user.call('/dashboard/api/v1/no-such-thing');
    expect(unknown.status).toBe(404);
    expect(bodyOf(unknown)).toMatchObject({ code: 'NOT_FOUND' });
    const wrongMethod = await user.call('/dashboard/api/v1/me', { method: 'PUT', body: {} });
    expect(wrongMethod.status).toBe(405);
    expect(wrongMethod.headers.get('allow')).toContain('GET');
    expect((await user.call('/dashboard/api/v2/me')).status).toBe(404);
    const invalid = await user.call('/dashboard/api/v1/orgs', { method: 'POST', body: { name: '' } });
    expect(invalid.status).toBe(422);
    expect(bodyOf<{ detail: Array<{ loc: string[] }> }>(invalid).detail[0]!.loc).toEqual(['body', 'name']);
  });

  it('counts rate limits per dashboard session: two browsers of one person have their own', async () => {
    const laptop = await signedInUser(app, 'limits');
    const phone = await signedInUser(app, 'limits', laptop.email);
    const remaining = async (user: DashboardUserAgent) => Number((await user.call('/dashboard/api/v1/me')).headers.get('x-ratelimit-remaining'));
    // All four calls inside one fixed minute window (limits count per epoch minute).
    await withinOneMinuteWindow(3_000);
    const laptopFirst = await remaining(laptop);
    await remaining(laptop);
    const laptopThird = await remaining(laptop);
    expect(laptopThird).toBe(laptopFirst - 2);
    // The phone's first call is counted against its own session, not after the laptop's three.
    expect(await remaining(phone)).toBe(laptopFirst);
  });

  it('never forwards the browser cookie or a bearer token the page tries to set', async () => {
    const user = await signedInUser(app, 'headers');
    const res = await user.call('/dashboard/api/v1/me', { headers: { authorization: 'Bearer svc_live_forged' } });
    expect(res.status).toBe(200);
    expect(bodyOf<{ email: string }>(res).email).toBe(user.email);
  });
});
