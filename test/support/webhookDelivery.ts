import { withTransaction } from '../../src/db/pool.js';
import { markEventsDispatched } from '../../src/features/webhooks/events.repository.js';
import { emitEvent } from '../../src/features/webhooks/emitEvent.js';
import { startWorkflow } from '../../src/workflows.js';
import { deliveryTiming } from '../../src/features/webhooks/timing.js';
import type { DeliverWebhookResult } from '../../src/features/webhooks/webhooks.contract.js';
import type { TestApp } from './testApp.js';

/**
 * One attempt of a `ping` to one endpoint by this app's own worker: the event is marked dispatched
 * as it is written, so no dispatcher on the same database sends it too.
 */
export async function pingOnce(app: TestApp, props: { orgId: string; endpointId: string; livemode: boolean }): Promise<{ eventId: string; result: DeliverWebhookResult }> {
  const eventId = await withTransaction(app.deps.db, async (tx) => {
    const id = await emitEvent({ db: tx, orgId: props.orgId, livemode: props.livemode, type: 'ping', object: { id: props.endpointId } });
    await markEventsDispatched(tx, [id]);
    return id;
  });
  const handle = await startWorkflow(app.deps.temporal.client, 'deliverWebhookWorkflow', {
    workflowId: `ping-once-${props.endpointId}-${eventId}`,
    taskQueue: app.deps.config.temporal.taskQueue,
    args: [{ endpointId: props.endpointId, eventId, livemode: props.livemode, timing: deliveryTiming(app.deps.config), once: true }],
  });
  return { eventId, result: await handle.result() };
}
