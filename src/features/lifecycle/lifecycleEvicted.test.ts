import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../../../test/support/testApp.js';
import { customerFactory } from '../../../test/support/customers.js';
import { COM_YEAR_PRICE, lifecycleActions, type LifecycleCustomer } from '../../../test/support/lifecycle.js';

const CACHE = 2;

let app: TestApp;
let f: ReturnType<typeof customerFactory>;
let lifecycle: ReturnType<typeof lifecycleActions>;

// The worker keeps at most two workflows between their tasks (the least it may keep), so a domain's
// lifecycle, idle for days, is evicted as others run and replays its history when it next wakes, as
// under a production worker holding more idle lifecycles than WORKER_MAX_CACHED_WORKFLOWS (docs/bench.md).
beforeAll(async () => {
  app = await startTestApp({ worker: true, env: { WORKER_MAX_CACHED_WORKFLOWS: String(CACHE), WORKER_MAX_CONCURRENT_WORKFLOW_TASKS: String(CACHE) } });
  f = customerFactory(app);
  lifecycle = lifecycleActions(app, f);
});
afterAll(async () => {
  await app?.close();
});

/** How many workflows the worker holds now; checked after every step, it never passes the cache's size. */
const cached = () => app.worker!.worker.getStatus().numCachedWorkflows;

async function registered(c: LifecycleCustomer, label: string) {
  const domain = await lifecycle.registered(c, { autoRenew: true, label });
  expect(cached()).toBeLessThanOrEqual(CACHE);
  return domain;
}

describe('a domain lifecycle evicted from the worker’s cache', () => {
  it('wakes by replaying its history and auto-renews once, as one kept in memory does', async () => {
    const c = await f.customer(10_000);
    const first = await registered(c, 'evicted');
    // Two more registrations run four workflows after the first domain's lifecycle last ran (each
    // registration and each new lifecycle): a cache of two, least recently used out first, holds none
    // of it. Three lifecycles idle, where a worker with room keeps all three: at most two are held.
    await registered(c, 'later-a');
    await registered(c, 'later-b');
    expect(cached()).toBeLessThan(3);
    expect(await f.balance(c)).toMatchObject({ available: 10_000 - 3 * COM_YEAR_PRICE });

    await lifecycle.advance(c, first.name, 340);
    await expect.poll(async () => (await lifecycle.domainOf(c, first.name)).expires_at, { timeout: 30_000, interval: 200 }).not.toBe(first.expires_at);
    const renewed = await lifecycle.domainOf(c, first.name);
    expect(new Date(renewed.expires_at).getUTCFullYear()).toBe(new Date(first.expires_at).getUTCFullYear() + 1);

    expect(await lifecycle.renewOperations(c)).toEqual([expect.objectContaining({ status: 'succeeded', domain: first.name })]);
    expect(await f.balance(c)).toMatchObject({ available: 10_000 - 4 * COM_YEAR_PRICE, reserved: 0 });
    expect(cached()).toBeLessThanOrEqual(CACHE);
  });
});
