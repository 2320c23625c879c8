/**
 * `npm run bench -- --scenario mixed`: six clients for 90 s, each looping through what a customer's
 * scripts do: a registration, two availability checks, a contact, a DNS record and a look at its
 * operation. The question is whether the worker keeps up with what the api accepts.
 */
import { randomBase62 } from '../../src/ids.js';
import { benchCustomer, type BenchCustomer } from '../lib/customer.js';
import { OperationWatcher, ledgerProblems } from '../lib/operations.js';
import { summarise, type BenchRow } from '../lib/report.js';
import type { Stack } from '../lib/stack.js';

const CONTACT = { first_name: 'Mixed', last_name: 'Load', phone: '+442071838750', address1: '1 High St', city: 'London', postal_code: 'EC1A 1BB', country: 'GB' };

interface ClientTally {
  requests: number;
  unexpected: string[];
  accepted: { acceptedAt: number; ended: Promise<{ status: string; completedAt: number }> }[];
}

async function client(stack: Stack, c: BenchCustomer, watcher: OperationWatcher, until: number, tally: ClientTally): Promise<void> {
  const headers = { authorization: `Bearer ${c.testKey}`, 'content-type': 'application/json' };
  const org = `${stack.api.url}/api/v1/orgs/${c.orgId}`;
  const send = async (what: string, url: string, init: RequestInit, expected: number) => {
    const res = await fetch(url, { headers, ...init });
    const body = await res.text();
    tally.requests += 1;
    if (res.status !== expected) tally.unexpected.push(`${what}: ${res.status} ${body.slice(0, 200)}`);
    return res.status === expected ? (JSON.parse(body) as { id: string }) : undefined;
  };
  for (let i = 0; Date.now() < until; i += 1) {
    const name = `mixed-${randomBase62(12).toLowerCase()}.com`;
    const sentAt = Date.now();
    const op = await send('register', `${org}/domains`, { method: 'POST', headers: { ...headers, 'idempotency-key': `mixed-${name}` }, body: JSON.stringify({ name, years: 1, registrant_contact_id: c.testContactId }) }, 202);
    if (op) tally.accepted.push({ acceptedAt: sentAt, ended: watcher.ended(op.id) });
    await send('availability', `${stack.api.url}/api/v1/domains/availability?name=${name}`, {}, 200);
    await send('availability', `${stack.api.url}/api/v1/domains/availability?name=other-${name}`, {}, 200);
    await send('contact', `${org}/contacts`, { method: 'POST', body: JSON.stringify({ ...CONTACT, email: `mixed-${i}@example.com` }) }, 201);
    await send('record', `${org}/domains/${c.testDomain}/records`, { method: 'POST', body: JSON.stringify({ type: 'TXT', name: `m${i}-${randomBase62(6).toLowerCase()}`, content: 'mixed load' }) }, 201);
    if (op) await send('operation', `${org}/operations/${op.id}`, {}, 200);
  }
}

export async function benchMixed(stack: Stack, props: { seconds: number; clients: number; label: string }): Promise<BenchRow[]> {
  const customers = await Promise.all(Array.from({ length: props.clients }, (_, i) => benchCustomer(stack.deps, `mixed-${i}`)));
  const watcher = new OperationWatcher(stack.deps.db);
  const tallies: ClientTally[] = customers.map(() => ({ requests: 0, unexpected: [], accepted: [] }));
  const started = Date.now();
  const until = started + props.seconds * 1_000;
  try {
    await Promise.all(customers.map((c, i) => client(stack, c, watcher, until, tallies[i]!)));
    const loadEnded = Date.now();
    const accepted = tallies.flatMap((t) => t.accepted);
    const ended = await Promise.all(accepted.map((a) => a.ended));
    const lastCompletion = Math.max(...ended.map((e) => e.completedAt));
    const latency = summarise(accepted.map((a, i) => ended[i]!.completedAt - a.acceptedAt));
    const loadSeconds = (loadEnded - started) / 1_000;
    const acceptedRate = accepted.length / loadSeconds;
    const completedInLoad = ended.filter((e) => e.completedAt <= loadEnded).length / loadSeconds;
    const drainMs = Math.max(0, lastCompletion - loadEnded);
    const requests = tallies.reduce((sum, t) => sum + t.requests, 0);
    const unexpected = tallies.flatMap((t) => t.unexpected);
    const problems = [...(await ledgerProblems(stack.deps.db, customers.map((c) => c.orgId))), ...ended.filter((e) => e.status !== 'succeeded').map((e) => `an operation ${e.status}`)];
    const section = `Mixed load, ${props.clients} clients for ${props.seconds} s, ${props.label}`;
    return [
      { section, name: 'requests per second, all kinds', value: requests / loadSeconds, unit: 'req/s', detail: `${requests} requests, ${unexpected.length} unexpected answers${unexpected.length ? `: ${unexpected.slice(0, 3).join(' | ')}` : ''}` },
      { section, name: 'registrations accepted per second', value: acceptedRate, unit: '/s', detail: `${accepted.length} accepted` },
      {
        section,
        name: 'registrations completed per second',
        value: completedInLoad,
        unit: '/s',
        ratio: completedInLoad / acceptedRate,
        detail: `completed while the load ran; the last one ${(drainMs / 1_000).toFixed(1)} s after it stopped`,
        target: { text: 'keeps up (≥ accepted/s; drained within 2 s)', met: drainMs <= 2_000 },
      },
      { section, name: 'request → succeeded p99', value: latency.p99, unit: 'ms', detail: `p50 ${latency.p50.toFixed(0)} ms, max ${latency.max.toFixed(0)} ms`, target: { text: '< 2 s', met: latency.p99 < 2_000 } },
      { section, name: 'lost, failed or charged twice', value: problems.length, unit: '', detail: problems.slice(0, 3).join('; ') || 'none', target: { text: 'none', met: problems.length === 0 } },
    ];
  } finally {
    watcher.stop();
  }
}
