import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../support/testApp.js';
import { bearer, jsonHeaders } from '../support/actors.js';
import { customerFactory, type OperationBody } from '../support/customers.js';
import { readJson } from '../support/http.js';

const RENEW_PRICE = 1299; // .com in test mode (migrations/1763800002000_tld_prices.sql)
const CACHE = 2;

let app: TestApp;
let f: ReturnType<typeof customerFactory>;

// The worker keeps at most two workflows between their tasks (the least it may keep), so a domain's
// lifecycle, idle for days, is evicted as others run and replays its history when it next wakes, as
// under a production worker holding more idle lifecycles than WORKER_MAX_CACHED_WORKFLOWS (docs/bench.md).
beforeAll(async () => {
  app = await startTestApp({ worker: true, env: { WORKER_MAX_CACHED_WORKFLOWS: String(CACHE), WORKER_MAX_CONCURRENT_WORKFLOW_TASKS: String(CACHE) } });
  f = customerFactory(app);
});
afterAll(async () => {
  await app?.close();
});

type Customer = Awaited<ReturnType<ReturnType<typeof customerFactory>['customer']>>;

/** How many workflows the worker holds now; checked after every step, it never passes the cache's size. */
const cached = () => app.worker!.worker.getStatus().numCachedWorkflows;

async function registered(c: Customer, label: string): Promise<{ name: string; expires_at: string }> {
  const name = `${label}-${Date.now().toString(36)}${Math.random().toString(36).slice(2, 6)}.com`;
  const res = await f.register(c, { name, years: 1, registrant_contact_id: c.contactId, auto_renew: true }, `r-${name}`);
  expect(res.status).toBe(202);
  expect((await f.pollUntilFinished(c, res.headers.get('location')!)).status).toBe('succeeded');
  expect(cached()).toBeLessThanOrEqual(CACHE);
  return readJson(await app.fetch(`/api/v1/orgs/${c.org.id}/domains/${name}`, { headers: bearer(c.key) }));
}

describe('a domain lifecycle evicted from the worker’s cache', () => {
  it('wakes by replaying its history and auto-renews once, as one kept in memory does', async () => {
    const c = await f.customer(10_000);
    const first = await registered(c, 'evicted');
    // Two more registrations run four workflows after the first domain's lifecycle last ran (each
    // registration and each new lifecycle): a cache of two, least recently used out first, holds none of it.
    await registered(c, 'later-a');
    await registered(c, 'later-b');
    // Three lifecycles idle, where a worker with room keeps all three: at most two are held.
    expect(cached()).toBeLessThan(3);
    expect(await f.balance(c)).toMatchObject({ available: 10_000 - 3 * RENEW_PRICE });

    const moved = await app.fetch(`/api/v1/orgs/${c.org.id}/domains/${first.name}/test-clock`, {
      method: 'POST',
      headers: jsonHeaders(c.key),
      body: JSON.stringify({ advance_days: 340 }),
    });
    expect(moved.status).toBe(200);
    const expiresAt = async () => readJson<{ expires_at: string }>(await app.fetch(`/api/v1/orgs/${c.org.id}/domains/${first.name}`, { headers: bearer(c.key) }));
    await expect.poll(async () => (await expiresAt()).expires_at, { timeout: 30_000, interval: 200 }).not.toBe(first.expires_at);
    expect(new Date((await expiresAt()).expires_at).getUTCFullYear()).toBe(new Date(first.expires_at).getUTCFullYear() + 1);

    const page = await readJson<{ data: OperationBody[] }>(await app.fetch(`/api/v1/orgs/${c.org.id}/operations?limit=100`, { headers: bearer(c.key) }));
    expect(page.data.filter((op) => op.type === 'domain.renew')).toEqual([expect.objectContaining({ status: 'succeeded', domain: first.name })]);
    expect(await f.balance(c)).toMatchObject({ available: 10_000 - 4 * RENEW_PRICE, reserved: 0 });
    expect(cached()).toBeLessThanOrEqual(CACHE);
  });
});
