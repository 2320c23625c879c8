import { expect } from 'vitest';
import type { TestApp } from './testApp.js';
import { bearer, jsonHeaders } from './actors.js';
import { dnsCustomer } from './domains.js';
import { readJson } from './http.js';
import type { ClientRun, LoadTarget } from './ledgerInvariants.js';

const CLIENTS = 5;
/** Per client: requests stop at this count even if the duration is not over. */
const MAX_ITERATIONS = 400;
const TOP_UP = 2_000_000;

/** Where requests go: an in-process app, or api processes behind one `fetch`. */
type HttpTarget = Pick<LoadTarget, 'fetch'>;

const post = (target: HttpTarget, c: ClientRun['customer'], path: string, body: unknown, idempotencyKey?: string) =>
  target.fetch(`/api/v1/orgs/${c.org.id}${path}`, {
    method: 'POST',
    headers: { ...jsonHeaders(c.key), ...(idempotencyKey ? { 'idempotency-key': idempotencyKey } : {}) },
    body: JSON.stringify(body),
  });

const CONTACT = { first_name: 'Load', last_name: 'Test', phone: '+442071838750', address1: '1 High St', city: 'London', postal_code: 'EC1A 1BB', country: 'GB' };

async function newClient(app: TestApp, index: number): Promise<ClientRun> {
  const customer = await dnsCustomer(app, 'test');
  expect((await post(app, customer, '/billing/top-ups', { amount: TOP_UP })).status).toBe(201);
  const contact = await readJson<{ id: string }>(await post(app, customer, '/contacts', { ...CONTACT, email: `load-${index}@example.com` }));
  return { customer, contactId: contact.id, accepted: new Map(), unexpected: [], counts: {} };
}

/** One client's loop: a registration (sometimes failing, flaky, replayed or raced), a contact, a record. */
async function runClient(target: HttpTarget, run: ClientRun, index: number, until: number): Promise<void> {
  const c = run.customer;
  const active: string[] = [];
  const settled = new Set<string>();
  const count = (what: string) => (run.counts[what] = (run.counts[what] ?? 0) + 1);
  const expectStatus = async (res: Response, allowed: number[], what: string) => {
    count(`${what} ${res.status}`);
    if (!allowed.includes(res.status)) run.unexpected.push(`${what}: ${res.status} ${await res.text()}`);
  };
  for (let i = 0; i < MAX_ITERATIONS && Date.now() < until; i += 1) {
    const suffix = ['', '', '', '-fail', '-flaky'][i % 5];
    const name = `load${index}-${i}-${Date.now()}${suffix}.com`;
    const body = { name, years: 1, registrant_contact_id: run.contactId };
    const raced = i % 7 === 3;
    const responses = await Promise.all((raced ? [0, 1] : [0]).map((n) => post(target, c, '/domains', body, `load-${i}-${n}-${name}`)));
    for (const res of responses) {
      await expectStatus(res, raced ? [202, 409] : [202], 'register');
      if (res.status === 202) run.accepted.set((await readJson<{ id: string }>(res)).id, name);
    }
    if (raced && responses.filter((r) => r.status === 202).length !== 1) run.unexpected.push(`race on ${name}: ${responses.map((r) => r.status).join(',')}`);
    if (i % 6 === 1 && !raced) {
      // A client retrying its last request: the same answer, nothing charged again.
      const replay = await post(target, c, '/domains', body, `load-${i}-0-${name}`);
      await expectStatus(replay, [202], 'replay');
      if (replay.headers.get('idempotent-replayed') !== 'true') run.unexpected.push(`replay of ${name} was not replayed`);
    }
    await expectStatus(await post(target, c, '/contacts', { ...CONTACT, email: `load-${index}-${i}@example.com` }), [201], 'contact');
    // Learn which registrations finished, to put records on the active ones: the oldest unsettled
    // first, as a worker that falls behind finishes those before the newest.
    const unsettled = [...run.accepted].filter(([id]) => !settled.has(id)).slice(0, 3);
    for (const [id, domain] of unsettled) {
      const op = await readJson<{ status: string }>(await target.fetch(`/api/v1/orgs/${c.org.id}/operations/${id}`, { headers: bearer(c.key) }));
      if (op.status === 'succeeded') active.push(domain);
      if (['succeeded', 'failed', 'cancelled'].includes(op.status)) settled.add(id);
    }
    const domain = active[i % Math.max(active.length, 1)];
    if (domain) await expectStatus(await post(target, c, `/domains/${domain}/records`, { type: 'A', name: `h${i}`, content: '192.0.2.7' }), [201], 'record');
  }
}

export interface LoadProps {
  /** Sets up the customers (sessions, keys, top-ups) in process. */
  app: TestApp;
  /** Where the load goes: the same app, or several api processes behind one `fetch`. */
  target: HttpTarget;
  durationMs: number;
  clients?: number;
  /** Runs beside the load; its argument resolves a third of the way in. */
  midRun?: (third: Promise<void>) => Promise<void>;
}

/**
 * Several clients register test-mode domains (some failing, flaky, replayed or raced), create contacts
 * and DNS records until `durationMs` has passed or MAX_ITERATIONS each; asserts every answer was one a
 * client may get and that every kind of request really ran. Loopback only, bounded in time and count.
 */
export async function runLoad({ app, target, durationMs, clients = CLIENTS, midRun }: LoadProps): Promise<ClientRun[]> {
  const runs = await Promise.all(Array.from({ length: clients }, (_, i) => newClient(app, i)));
  const started = Date.now();
  const until = started + durationMs;
  const fault = midRun?.(new Promise((resolve) => setTimeout(resolve, durationMs / 3)));
  await Promise.all(runs.map((run, i) => runClient(target, run, i, until)));
  await fault;
  for (const run of runs) expect(run.unexpected).toEqual([]);
  const total = (what: string) => runs.reduce((sum, r) => sum + (r.counts[what] ?? 0), 0);
  console.info(`load: ${JSON.stringify(Object.fromEntries(['register 202', 'register 409', 'replay 202', 'contact 201', 'record 201'].map((k) => [k, total(k)])))}`);
  // A load test that did nothing proves nothing: registrations, races, contacts and records all ran.
  expect(total('register 202')).toBeGreaterThanOrEqual(clients * 3);
  expect(total('register 409')).toBeGreaterThan(0);
  expect(total('contact 201')).toBeGreaterThanOrEqual(clients * 3);
  expect(total('record 201')).toBeGreaterThan(0);
  return runs;
}

