import type { AppDeps } from '../src/deps.js';
import type { Principal } from '../src/auth/principal.js';
import { createApp } from '../src/app.js';
import { listen } from '../src/http/listen.js';
import { createWorker } from '../src/worker/worker.js';
import { insertContact } from '../src/db/repositories/contacts.js';
import { topUp } from '../src/services/billing/ledger.js';
import { newId } from '../src/ids.js';

export interface RegistrationBench {
  registrations: number;
  accepted: number;
  succeeded: number;
  acceptP50Ms: number;
  acceptP99Ms: number;
  completeP50Ms: number;
  completeP99Ms: number;
}

export function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))] ?? 0;
}

/**
 * Test-mode registrations through the real api, worker and Temporal: the latency of the 202, and the
 * time from the 202 until the operation reads `succeeded`. Requests go out 10 at a time.
 */
export async function benchRegistrations(props: { deps: AppDeps; principal: Principal; testKey: string; orgId: string; count: number }): Promise<RegistrationBench> {
  const { deps } = props;
  const mode = { livemode: false };
  await topUp({ db: deps.db, orgId: props.orgId, livemode: false, amount: 1299 * props.count, actor: { actorUserId: props.principal.user.id, actorKeyId: null }, requestId: 'bench' });
  const contact = await insertContact(deps.db, mode, {
    id: newId('ct'),
    orgId: props.orgId,
    fields: { firstName: 'Bench', lastName: 'Mark', organization: null, email: 'bench@example.com', phone: '+14155550123', address1: '1 Main St', address2: null, city: 'SF', state: 'CA', postalCode: '94105', country: 'US' },
  });
  const worker = await createWorker(deps);
  const running = worker.worker.run();
  // The api without the rate limiter, so the benchmark measures registrations rather than limits.
  const api = await listen(createApp(deps, { layers: { rateLimit: false, idempotency: true } }), '127.0.0.1', 0);
  const accept: number[] = [];
  const complete: number[] = [];
  let succeeded = 0;
  try {
    const run = async (i: number) => {
      const started = performance.now();
      const res = await fetch(`${api.url}/api/v1/orgs/${props.orgId}/domains`, {
        method: 'POST',
        headers: { authorization: `Bearer ${props.testKey}`, 'content-type': 'application/json', 'idempotency-key': `bench-${Date.now()}-${i}` },
        body: JSON.stringify({ name: `bench-${Date.now()}-${i}.com`, years: 1, registrant_contact_id: contact.id }),
      });
      await res.arrayBuffer();
      const acceptedAt = performance.now();
      if (res.status !== 202) return;
      accept.push(acceptedAt - started);
      const location = res.headers.get('location')!;
      for (;;) {
        const op = (await (await fetch(`${api.url}${location}`, { headers: { authorization: `Bearer ${props.testKey}` } })).json()) as { status: string };
        if (op.status === 'succeeded') {
          succeeded += 1;
          complete.push(performance.now() - acceptedAt);
          return;
        }
        if (op.status === 'failed') return;
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
    };
    for (let i = 0; i < props.count; i += 10) {
      await Promise.all(Array.from({ length: Math.min(10, props.count - i) }, (_, j) => run(i + j)));
    }
  } finally {
    await api.close(1_000);
    worker.worker.shutdown();
    await running;
    await worker.connection.close();
  }
  accept.sort((a, b) => a - b);
  complete.sort((a, b) => a - b);
  return {
    registrations: props.count,
    accepted: accept.length,
    succeeded,
    acceptP50Ms: percentile(accept, 50),
    acceptP99Ms: percentile(accept, 99),
    completeP50Ms: percentile(complete, 50),
    completeP99Ms: percentile(complete, 99),
  };
}
