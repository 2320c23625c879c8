import type { Client } from '@temporalio/client';
import { withTransaction, type Db, type Queryable } from '../../db/pool.js';
import { lockUndispatchedEvents, markEventsDispatched, type EventRow } from './events.repository.js';
import { enabledEndpointsOfOrgs, endpointWantsEvent, type WebhookEndpoint } from './endpoints.repository.js';
import type { Workflows } from '../../workflows.js';
import { ENDPOINT_QUEUE_IDLE_MS, endpointQueueWorkflowId } from './timing.js';
import { deliveriesQueuedSignal, type WebhookDeliveryTiming } from './webhooks.contract.js';
import { endpointsOverdue, markQueuesAwake, queueDeliveries } from './deliveryQueue.repository.js';
import { modeOf } from '../../db/modeScope.js';

export interface DispatchProps {
  db: Db;
  client: Client;
  taskQueue: string;
  timing: WebhookDeliveryTiming;
  batch: number;
  /** A workflow that could not be woken (woken later by wakeOverdueQueues). */
  onWakeFailed?: (err: unknown) => void;
}

/** A `ping` (`POST …/test`) goes to the endpoint it was made for, whatever that endpoint subscribes to. */
function pingTarget(event: EventRow): string | null {
  if (event.type !== 'ping') return null;
  const object = event.data.object as { id?: unknown } | null;
  return typeof object?.id === 'string' ? object.id : null;
}

/** The batch's organisations' enabled endpoints, by mode and organisation: one read per mode present, whatever the batch's size. */
async function endpointsOfBatch(tx: Queryable, events: EventRow[]): Promise<Map<string, WebhookEndpoint[]>> {
  const reads = [true, false].map((livemode) => {
    const orgIds = [...new Set(events.filter((event) => event.livemode === livemode).map((event) => event.orgId))];
    return enabledEndpointsOfOrgs(tx, modeOf(livemode), orgIds);
  });
  const byOrg = new Map<string, WebhookEndpoint[]>();
  for (const endpoint of (await Promise.all(reads)).flat()) {
    const key = orgKey(endpoint);
    const ofOrg = byOrg.get(key);
    if (ofOrg) ofOrg.push(endpoint);
    else byOrg.set(key, [endpoint]);
  }
  return byOrg;
}

const orgKey = (row: { livemode: boolean; orgId: string }) => `${row.livemode ? 'live' : 'test'} ${row.orgId}`;

/**
 * Hands one batch of the outbox to delivery: each undispatched event queued, in the outbox's order, for
 * every endpoint that should get it (src/features/webhooks/deliveryQueue.repository.ts), in one
 * statement and in the transaction that marks the events dispatched, so a crash loses nothing and
 * queues nothing twice. After the commit, the workflow of each endpoint whose queue was asleep is
 * woken (signal-with-start, src/features/webhooks/endpointQueue.workflow.ts); one that cannot be is
 * woken later by wakeOverdueQueues. Returns how many events it handled.
 */
export async function dispatchEvents(props: DispatchProps): Promise<number> {
  const { handled, toWake } = await withTransaction(props.db, async (tx) => {
    const events = await lockUndispatchedEvents(tx, props.batch);
    const endpointsByOrg = await endpointsOfBatch(tx, events);
    const deliveries = events.flatMap((event) => {
      const target = { orgId: event.orgId, livemode: event.livemode, type: event.type, pingEndpointId: pingTarget(event) };
      const endpoints = endpointsByOrg.get(orgKey(event)) ?? [];
      return endpoints
        .filter((endpoint) => endpointWantsEvent(endpoint, target))
        .map((endpoint) => ({ endpointId: endpoint.id, eventId: event.id, orgId: event.orgId, livemode: event.livemode }));
    });
    await queueDeliveries(tx, deliveries, props.timing.retryForMs);
    const woken = new Set(await markQueuesAwake(tx, deliveries.map((d) => d.endpointId)));
    await markEventsDispatched(
      tx,
      events.map((event) => event.id),
    );
    const livemodes = new Map(deliveries.map((d) => [d.endpointId, d.livemode]));
    return { handled: events.length, toWake: [...woken].map((endpointId) => ({ endpointId, livemode: livemodes.get(endpointId)! })) };
  });
  await wakeQueues(props, toWake);
  return handled;
}

/** Signals (starting where none runs) the workflow of each endpoint; a failure is reported, not thrown: the sweep wakes it later. */
export async function wakeQueues(props: Omit<DispatchProps, 'db' | 'batch'>, queues: { endpointId: string; livemode: boolean }[]): Promise<void> {
  const results = await Promise.allSettled(
    queues.map(({ endpointId, livemode }) =>
      props.client.workflow.signalWithStart<Workflows['deliverEndpointWebhooksWorkflow'], []>('deliverEndpointWebhooksWorkflow', {
        workflowId: endpointQueueWorkflowId(endpointId),
        taskQueue: props.taskQueue,
        args: [{ endpointId, livemode, timing: props.timing, idleMs: ENDPOINT_QUEUE_IDLE_MS }],
        signal: deliveriesQueuedSignal,
        signalArgs: [],
      }),
    ),
  );
  for (const result of results) if (result.status === 'rejected') props.onWakeFailed?.(result.reason);
}

/**
 * Wakes the workflows of endpoints whose queue has had a delivery due for over `overdueMs`: one whose
 * wake was lost between the dispatcher's commit and its signal (Temporal unreachable, a crash), or
 * whose workflow was ended from outside. A busy one woken needlessly costs only a signal.
 */
export async function wakeOverdueQueues(props: Omit<DispatchProps, 'batch'> & { overdueMs: number }): Promise<number> {
  const overdue = await endpointsOverdue(props.db, { overdueMs: props.overdueMs, limit: 1_000 });
  await wakeQueues(props, overdue);
  return overdue.length;
}
