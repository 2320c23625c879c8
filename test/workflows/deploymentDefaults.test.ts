/**
 * One live customer's journey with the limits a deployment has: registrar checks paced at the default
 * REGISTRAR_CHECK_PER_MINUTE (60; every other test app allows 100,000) and every request from the one
 * address the customer sits behind, so per-address pools and registrar pacing meet an ordinary journey,
 * not only their own tests (test/http/addressLimits.test.ts, test/http/registrarBudget.test.ts).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../support/testApp.js';
import { bearer } from '../support/actors.js';
import { readJson } from '../support/http.js';
import { FakeDnsimple, registrarEnv } from '../support/fakeDnsimple.js';
import { liveCustomers } from '../support/liveCustomers.js';
import { randomBase62 } from '../../src/ids.js';

let dnsimple: FakeDnsimple;
let app: TestApp;
beforeAll(async () => {
  dnsimple = await FakeDnsimple.start();
  app = await startTestApp({ worker: true, deploymentDefaults: true, env: registrarEnv(dnsimple) });
});
afterAll(async () => {
  await app?.close();
  await dnsimple?.close();
});

type Slot = { name: string; available?: boolean; error?: unknown };

describe('a live journey with deployment defaults', () => {
  it('checks names, registers one, renews it and finds it active, all from one address, with checks paced at 60 a minute', async () => {
    expect(app.deps.config.registrarCheckPerMinute).toBe(60);
    const live = liveCustomers(app);
    const c = await live.customer(10_000);
    const label = randomBase62(8).toLowerCase();
    const [name, other, third] = [`journey-${label}.com`, `journey-${label}-b.com`, `journey-${label}-c.com`];
    const checksBefore = dnsimple.requestsTo('GET', '/check').length;

    const single = await app.fetch(`/api/v1/domains/availability?name=${name}`, { headers: bearer(c.token) });
    expect(single.status).toBe(200);
    expect(await readJson<{ available: boolean }>(single)).toMatchObject({ available: true });
    const bulk = await app.fetch('/api/v1/domains/availability/bulk', {
      method: 'POST',
      headers: { ...bearer(c.token), 'content-type': 'application/json' },
      body: JSON.stringify({ names: [other, third] }),
    });
    expect(bulk.status).toBe(200);
    expect((await readJson<{ results: Slot[] }>(bulk)).results.map((s) => [s.name, s.available])).toEqual([
      [other, true],
      [third, true],
    ]);
    // One check a second: never closer, whatever else the machine is doing (late timers only widen it).
    const checks = dnsimple.requestsTo('GET', '/check').slice(checksBefore).map((r) => r.at!);
    expect(checks).toHaveLength(3);
    for (let i = 1; i < checks.length; i++) expect(checks[i]! - checks[i - 1]!).toBeGreaterThanOrEqual(900);

    const base = `/api/v1/orgs/${c.org.id}/domains`;
    /** A paid operation to its end: accepted (202), or answered at once (200) when it finished in time. */
    const operate = async (res: Response) => {
      expect([200, 202]).toContain(res.status);
      const body = await readJson<{ id?: string; operation_id?: string }>(res);
      return (await live.finish(c.token, `/api/v1/orgs/${c.org.id}/operations/${body.operation_id ?? body.id}`, 250, 240)).status;
    };
    expect(await operate(await live.post(c, base, `journey-${name}`, { name, years: 1, registrant_contact_id: c.contactId }))).toBe('succeeded');
    expect(await operate(await live.post(c, `${base}/${name}/renew`, `journey-renew-${name}`, { years: 1 }))).toBe('succeeded');

    const domain = await app.fetch(`${base}/${name}`, { headers: bearer(c.token) });
    expect(domain.status).toBe(200);
    expect(await readJson<{ status: string }>(domain)).toMatchObject({ status: 'active' });
    expect(dnsimple.charges(name)).toEqual({ registrations: 1, renewals: 1, transfers: 0 });
    expect((await live.balanceOf(c)).reserved).toBe(0);
    // The unauthenticated pages of the journey count against the address's public pool.
    expect((await app.fetch('/healthz')).status).toBe(200);
  }, 120_000);
});
