import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { AppDeps } from '../src/deps.js';
import { withTransaction } from '../src/db/pool.js';
import { emitEvent } from '../src/services/events/emitEvent.js';
import { createWebhookEndpoint } from '../src/services/webhooks/endpoints.js';
import { startEventDispatcher } from '../src/services/webhooks/startDispatcher.js';
import { createWorker } from '../src/worker/worker.js';
import { percentile } from './registrations.js';

export interface WebhookLatencyBench {
  events: number;
  delivered: number;
  p50Ms: number;
  p99Ms: number;
  maxMs: number;
}

/**
 * Latency from a state change (the commit of a transaction that emits an event, as every emitter
 * does) to the receiver's 200: dispatcher, delivery workflow, signing and the POST, over loopback.
 * One event every `spacingMs`; needs WEBHOOK_ALLOW_PRIVATE=true in the deps' config (loopback receiver).
 */
export async function benchWebhookLatency(props: { deps: AppDeps; orgId: string; count: number; spacingMs: number }): Promise<WebhookLatencyBench> {
  const { deps } = props;
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
    { db: deps.db, payloadKeys: deps.payloadKeys, allowPrivate: deps.config.webhooks.allowPrivate },
    { mode: { livemode: false }, orgId: props.orgId, url, events: ['operation.succeeded'], description: 'bench' },
  );
  const worker = await createWorker(deps);
  const running = worker.worker.run();
  const dispatcher = await startEventDispatcher(deps.temporal.client, deps.config);
  const committedAt = new Map<string, number>();
  try {
    for (let i = 0; i < props.count; i += 1) {
      const id = await withTransaction(deps.db, (tx) => emitEvent({ db: tx, orgId: props.orgId, livemode: false, type: 'operation.succeeded', object: { id: `op_bench_${i}` } }));
      committedAt.set(id, performance.now());
      await new Promise((resolve) => setTimeout(resolve, props.spacingMs));
    }
    const deadline = Date.now() + 60_000;
    while ([...committedAt.keys()].some((id) => !answeredAt.has(id)) && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 50));
  } finally {
    await deps.temporal.client.workflow.getHandle(dispatcher).terminate('bench over').catch(() => undefined);
    worker.worker.shutdown();
    await running;
    await worker.connection.close();
    receiver.closeAllConnections();
    await new Promise((resolve) => receiver.close(resolve));
  }
  const latencies = [...committedAt].flatMap(([id, at]) => (answeredAt.has(id) ? [answeredAt.get(id)! - at] : [])).sort((a, b) => a - b);
  return { events: props.count, delivered: latencies.length, p50Ms: percentile(latencies, 50), p99Ms: percentile(latencies, 99), maxMs: latencies.at(-1) ?? 0 };
}
