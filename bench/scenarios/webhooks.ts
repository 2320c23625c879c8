import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { withTransaction } from '../../src/db/pool.js';
import { emitEvent } from '../../src/features/webhooks/emitEvent.js';
import { createWebhookEndpoint } from '../../src/features/webhooks/endpoints.js';
import { benchCustomer } from '../lib/customer.js';
import { summarise, type BenchRow } from '../lib/report.js';
import type { Stack } from '../lib/stack.js';
import { modeOf } from '../../src/db/modeScope.js';

/**
 * Latency from a state change (the commit of a transaction that emits an event, as every emitter
 * does) to the receiver's 200: dispatcher, delivery workflow, signing and the POST, over loopback.
 * One event every `spacingMs`, delivered by the stack's worker process (the
 * stack sets WEBHOOK_ALLOW_PRIVATE=true for the loopback receiver).
 */
export async function benchWebhooks(stack: Stack, props: { count: number; spacingMs: number }): Promise<BenchRow[]> {
  const { deps } = stack;
  const { orgId } = await benchCustomer(deps, 'webhooks');
  const answeredAt = new Map<string, number>();
  const receiver = http.createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      res.writeHead(200).end('ok', () => answeredAt.set(String(req.headers['webhook-id']), performance.now()));
    });
  });
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hooks`;
  await createWebhookEndpoint(
    { db: deps.db, payloadKeys: deps.payloadKeys, destinations: deps.config.webhooks },
    { mode: modeOf(false), by: null, orgId, url, events: ['operation.succeeded'], description: 'bench' },
  );
  const committedAt = new Map<string, number>();
  try {
    for (let i = 0; i < props.count; i += 1) {
      const id = await withTransaction(deps.db, (tx) => emitEvent({ db: tx, orgId, livemode: false, type: 'operation.succeeded', object: { id: `op_bench_${i}` } }));
      committedAt.set(id, performance.now());
      await new Promise((resolve) => setTimeout(resolve, props.spacingMs));
    }
    const deadline = Date.now() + 60_000;
    while ([...committedAt.keys()].some((id) => !answeredAt.has(id)) && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 50));
  } finally {
    receiver.closeAllConnections();
    await new Promise((resolve) => receiver.close(resolve));
  }
  const latencies = summarise([...committedAt].flatMap(([id, at]) => (answeredAt.has(id) ? [answeredAt.get(id)! - at] : [])));
  const section = `Webhooks: the state change's commit to the receiver's 200 over loopback, one event every ${props.spacingMs} ms`;
  return [
    { section, name: 'delivery latency p50', value: latencies.p50, unit: 'ms', detail: `p99 ${latencies.p99.toFixed(0)} ms, max ${latencies.max.toFixed(0)} ms` },
    { section, name: 'delivered', value: latencies.count, unit: `of ${props.count}`, target: { text: 'all', met: latencies.count === props.count } },
  ];
}
