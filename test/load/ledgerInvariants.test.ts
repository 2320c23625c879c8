/**
 * Load against the real api and a real worker process (loopback only, bounded in time and count):
 * several clients register test-mode domains, create contacts and DNS records for LOAD_TEST_DURATION_MS
 * (default 60 s); then the money must add up. The second run SIGKILLs the worker mid-load and starts
 * another, as a crashed machine would be replaced.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../support/testApp.js';
import { bearer, jsonHeaders } from '../support/actors.js';
import { dnsCustomer, type Customer } from '../support/domains.js';
import { readJson } from '../support/http.js';
import type { RunningProcess } from '../support/processes.js';
import { startWorkerProcess } from '../support/workerProcess.js';
import { scheduleId } from '../../src/temporal/schedules.js';

const DURATION_MS = Number(process.env.LOAD_TEST_DURATION_MS ?? 60_000);
const CLIENTS = 5;
/** Per client: requests stop at this count even if the duration is not over. */
const MAX_ITERATIONS = 400;
const TOP_UP = 2_000_000;

let app: TestApp;
const workers: RunningProcess[] = [];
beforeAll(async () => {
  app = await startTestApp(); // the api only; workers run as processes
});
afterAll(async () => {
  for (const worker of workers) if (worker.child.exitCode === null) worker.child.kill('SIGKILL');
  await app?.deps.temporal.client.schedule.getHandle(scheduleId('operation-reconciler', app.deps.config)).delete().catch(() => undefined);
  await app?.close();
});

async function startWorker(): Promise<RunningProcess> {
  const worker = await startWorkerProcess(app.deps.config.temporal.taskQueue);
  workers.push(worker);
  return worker;
}

interface ClientRun {
  customer: Customer;
  contactId: string;
  accepted: Map<string, string>; // operation id -> domain name
  unexpected: string[];
  counts: Record<string, number>;
}

const post = (c: Customer, path: string, body: unknown, idempotencyKey?: string) =>
  app.fetch(`/api/v1/orgs/${c.org.id}${path}`, {
    method: 'POST',
    headers: { ...jsonHeaders(c.key), ...(idempotencyKey ? { 'idempotency-key': idempotencyKey } : {}) },
    body: JSON.stringify(body),
  });

const CONTACT = { first_name: 'Load', last_name: 'Test', phone: '+442071838750', address1: '1 High St', city: 'London', postal_code: 'EC1A 1BB', country: 'GB' };

async function newClient(index: number): Promise<ClientRun> {
  const customer = await dnsCustomer(app, 'test');
  expect((await post(customer, '/billing/top-ups', { amount: TOP_UP })).status).toBe(201);
  const contact = await readJson<{ id: string }>(await post(customer, '/contacts', { ...CONTACT, email: `load-${index}@example.com` }));
  return { customer, contactId: contact.id, accepted: new Map(), unexpected: [], counts: {} };
}

/** One client's loop: a registration (sometimes failing, flaky, replayed or raced), a contact, a record. */
async function runClient(run: ClientRun, index: number, until: number): Promise<void> {
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
    const responses = await Promise.all((raced ? [0, 1] : [0]).map((n) => post(c, '/domains', body, `load-${i}-${n}-${name}`)));
    for (const res of responses) {
      await expectStatus(res, raced ? [202, 409] : [202], 'register');
      if (res.status === 202) run.accepted.set((await readJson<{ id: string }>(res)).id, name);
    }
    if (raced && responses.filter((r) => r.status === 202).length !== 1) run.unexpected.push(`race on ${name}: ${responses.map((r) => r.status).join(',')}`);
    if (i % 6 === 1 && !raced) {
      // A client retrying its last request: the same answer, nothing charged again.
      const replay = await post(c, '/domains', body, `load-${i}-0-${name}`);
      await expectStatus(replay, [202], 'replay');
      if (replay.headers.get('idempotent-replayed') !== 'true') run.unexpected.push(`replay of ${name} was not replayed`);
    }
    await expectStatus(await post(c, '/contacts', { ...CONTACT, email: `load-${index}-${i}@example.com` }), [201], 'contact');
    // Learn which registrations finished, to put records on the active ones: the oldest unsettled
    // first, as a worker that falls behind finishes those before the newest.
    const unsettled = [...run.accepted].filter(([id]) => !settled.has(id)).slice(0, 3);
    for (const [id, domain] of unsettled) {
      const op = await readJson<{ status: string }>(await app.fetch(`/api/v1/orgs/${c.org.id}/operations/${id}`, { headers: bearer(c.key) }));
      if (op.status === 'succeeded') active.push(domain);
      if (['succeeded', 'failed', 'cancelled'].includes(op.status)) settled.add(id);
    }
    const domain = active[i % Math.max(active.length, 1)];
    if (domain) await expectStatus(await post(c, `/domains/${domain}/records`, { type: 'A', name: `h${i}`, content: '192.0.2.7' }), [201], 'record');
  }
}

async function waitUntilTerminal(orgIds: string[]): Promise<number> {
  const deadline = Date.now() + 90_000;
  for (;;) {
    const { rows } = await app.deps.db.query<{ open: number }>(
      `SELECT count(*)::int AS open FROM operations WHERE org_id = ANY($1) AND status IN ('pending', 'running')`,
      [orgIds],
    );
    if (rows[0]!.open === 0 || Date.now() > deadline) return rows[0]!.open;
    await new Promise((resolve) => setTimeout(resolve, 500));
  }
}

/** The invariants: every accepted operation terminal, balance = top-ups - captures, nothing held, no orphan ledger row. */
async function assertLedgerInvariants(runs: ClientRun[]): Promise<void> {
  const orgIds = runs.map((r) => r.customer.org.id);
  expect(await waitUntilTerminal(orgIds)).toBe(0);
  for (const run of runs) {
    const orgId = run.customer.org.id;
    const ops = await app.deps.db.query<{ id: string; status: string; amount: number }>(
      'SELECT id, status, amount::int AS amount FROM operations WHERE org_id = $1',
      [orgId],
    );
    // Exactly the accepted operations exist, and each has ended.
    expect(new Set(ops.rows.map((o) => o.id))).toEqual(new Set(run.accepted.keys()));
    for (const op of ops.rows) expect(['succeeded', 'failed', 'cancelled']).toContain(op.status);
    const succeeded = ops.rows.filter((o) => o.status === 'succeeded');

    const ledger = await app.deps.db.query<{ type: string; amount: number; operationId: string | null; operationStatus: string | null }>(
      `SELECT t.type, t.amount::int AS amount, t.operation_id AS "operationId", o.status AS "operationStatus"
       FROM billing_transactions t LEFT JOIN operations o ON o.id = t.operation_id WHERE t.org_id = $1`,
      [orgId],
    );
    expect(ledger.rows.filter((e) => e.operationId !== null && e.operationStatus === null)).toEqual([]);
    const captures = ledger.rows.filter((e) => e.type === 'capture');
    expect(captures.map((e) => e.operationId).sort()).toEqual(succeeded.map((o) => o.id).sort());
    const topUps = ledger.rows.filter((e) => e.type === 'top_up').reduce((sum, e) => sum + e.amount, 0);
    const spent = succeeded.reduce((sum, o) => sum + o.amount, 0);

    const balance = await readJson<{ available: number; reserved: number }>(
      await app.fetch(`/api/v1/orgs/${orgId}/billing/balance`, { headers: bearer(run.customer.key) }),
    );
    expect(balance).toMatchObject({ available: topUps - spent, reserved: 0 });
    const held = await app.deps.db.query(`SELECT operation_id FROM billing_reservations WHERE org_id = $1 AND state = 'reserved'`, [orgId]);
    expect(held.rows).toEqual([]);
  }
}

async function load(props: { midRun?: (elapsed: Promise<void>) => Promise<void> }): Promise<ClientRun[]> {
  const runs = await Promise.all(Array.from({ length: CLIENTS }, (_, i) => newClient(i)));
  const started = Date.now();
  const until = started + DURATION_MS;
  const fault = props.midRun?.(new Promise((resolve) => setTimeout(resolve, DURATION_MS / 3)));
  await Promise.all(runs.map((run, i) => runClient(run, i, until)));
  await fault;
  for (const run of runs) expect(run.unexpected).toEqual([]);
  const total = (what: string) => runs.reduce((sum, r) => sum + (r.counts[what] ?? 0), 0);
  console.info(`load: ${JSON.stringify(Object.fromEntries(['register 202', 'register 409', 'replay 202', 'contact 201', 'record 201'].map((k) => [k, total(k)])))}`);
  // A load test that did nothing proves nothing: registrations, races, contacts and records all ran.
  expect(total('register 202')).toBeGreaterThanOrEqual(CLIENTS * 3);
  expect(total('register 409')).toBeGreaterThan(0);
  expect(total('contact 201')).toBeGreaterThanOrEqual(CLIENTS * 3);
  expect(total('record 201')).toBeGreaterThan(0);
  return runs;
}

describe('under load', () => {
  it('every accepted operation ends, and the ledger adds up', { timeout: DURATION_MS + 180_000 }, async () => {
    const worker = await startWorker();
    const runs = await load({});
    await assertLedgerInvariants(runs);
    worker.child.kill('SIGTERM');
    await worker.exited;
  });

  it('with the worker killed (SIGKILL) mid-run and another started, the ledger still adds up', { timeout: DURATION_MS + 240_000 }, async () => {
    await startWorker();
    const runs = await load({
      midRun: async (third) => {
        await third;
        const victim = workers.at(-1)!;
        victim.child.kill('SIGKILL');
        expect(await victim.exited).toBeNull();
        await startWorker();
      },
    });
    await assertLedgerInvariants(runs);
  });
});
