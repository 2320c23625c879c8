import { WorkflowExecutionAlreadyStartedError, type Client } from '@temporalio/client';
import { withTransaction, type Db, type Queryable } from '../../db/pool.js';
import { lockUndispatchedEvents, markEventsDispatched, type EventRow } from './events.repository.js';
import { enabledEndpointsOfOrgs, endpointWantsEvent, type WebhookEndpoint } from './endpoints.repository.js';
import { startWorkflow } from '../../workflows.js';
import { deliveryWorkflowId } from './timing.js';
import type { WebhookDeliveryTiming } from './webhooks.contract.js';
import { deliveryNoLongerWaiting, recordDeliveriesWaiting } from './deliveriesWaiting.repository.js';
import { modeOf } from '../../db/modeScope.js';

export interface DispatchProps {
  db: Db;
  client: Client;
  taskQueue: string;
  timing: WebhookDeliveryTiming;
  batch: number;
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
 * Hands one batch of the outbox to delivery: for each undispatched event, one workflow per endpoint
 * that should get it (id from both, so a second dispatch finds the first), each recorded as waiting
 * first (src/features/webhooks/deliveriesWaiting.repository.ts), then the events are marked
 * dispatched in the batch's transaction. If Temporal cannot be reached, nothing is marked and the next
 * run tries again. Returns how many events it handled.
 */
export async function dispatchEvents(props: DispatchProps): Promise<number> {
  return withTransaction(props.db, async (tx) => {
    const events = await lockUndispatchedEvents(tx, props.batch);
    const endpointsByOrg = await endpointsOfBatch(tx, events);
    const starts = events.flatMap((event) => {
      const target = { orgId: event.orgId, livemode: event.livemode, type: event.type, pingEndpointId: pingTarget(event) };
      const endpoints = endpointsByOrg.get(orgKey(event)) ?? [];
      return endpoints.filter((endpoint) => endpointWantsEvent(endpoint, target)).map((endpoint) => ({ endpoint, event }));
    });
    const deliveries = starts.map(({ endpoint, event }) => ({ endpointId: endpoint.id, eventId: event.id, orgId: event.orgId, livemode: event.livemode }));
    // Committed before any workflow starts: a first attempt that succeeds at once finds its row to delete.
    await recordDeliveriesWaiting(props.db, deliveries, props.timing.retryForMs);
    const over = await Promise.all(
      starts.map(async ({ endpoint, event }, i) => {
        try {
          await startWorkflow(props.client, 'deliverWebhookWorkflow', {
            workflowId: deliveryWorkflowId(endpoint.id, event.id),
            taskQueue: props.taskQueue,
            args: [{ endpointId: endpoint.id, eventId: event.id, livemode: event.livemode, timing: props.timing }],
            workflowIdConflictPolicy: 'USE_EXISTING',
            workflowIdReusePolicy: 'REJECT_DUPLICATE',
          });
          return [];
        } catch (err) {
          // Delivered (or given up) already, by an earlier dispatch that could not mark the event.
          if (!(err instanceof WorkflowExecutionAlreadyStartedError)) throw err;
          return [deliveries[i]!];
        }
      }),
    );
    for (const delivery of over.flat()) await deliveryNoLongerWaiting(tx, modeOf(delivery.livemode), delivery);
    await markEventsDispatched(
      tx,
      events.map((event) => event.id),
    );
    return events.length;
  });
}
