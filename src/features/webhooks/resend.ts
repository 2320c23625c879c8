import type { Client } from '@temporalio/client';
import type { Config } from '../../config.js';
import type { Db } from '../../db/pool.js';
import type { Mode } from '../../db/modeScope.js';
import { findEvent, type EventRow } from './events.repository.js';
import { findDelivery } from './deliveries.repository.js';
import { findWebhookEndpoint } from './endpoints.repository.js';
import { ConflictError, NotFoundError } from '../../errors.js';
import { newId } from '../../ids.js';
import { presentWebhookEndpoint } from './endpoint.presenter.js';
import { startWorkflow } from '../../workflows.js';
import { deliveryTiming, deliveryWorkflowId } from './timing.js';
import { emitEvent } from './emitEvent.js';

const ENDPOINT_NOT_FOUND = 'Webhook endpoint not found';

/**
 * `POST …/{endpoint_id}/test`: a `ping` event (its object the endpoint), which the dispatcher sends to
 * that endpoint alone, signed and retried like any other.
 */
export async function sendPing(db: Db, props: { mode: Mode; orgId: string; endpointId: string }): Promise<EventRow> {
  const endpoint = await findWebhookEndpoint(db, props.mode, { orgId: props.orgId, id: props.endpointId });
  if (!endpoint) throw new NotFoundError(ENDPOINT_NOT_FOUND);
  if (!endpoint.enabled) throw new ConflictError('WEBHOOK_ENDPOINT_DISABLED', 'The endpoint is disabled; enable it first (PATCH {"enabled": true})');
  const id = await emitEvent({ db, orgId: props.orgId, livemode: props.mode.livemode, type: 'ping', object: presentWebhookEndpoint(endpoint) });
  return (await findEvent(db, props.mode, { orgId: props.orgId, id, audience: undefined }))!;
}

/**
 * `POST …/deliveries/{delivery_id}/retry`: that delivery's event sent again to the endpoint now, one
 * attempt in a workflow of its own (recorded as the next attempt), whatever the automatic retries do.
 */
export async function retryDelivery(
  deps: { db: Db; client: Client; config: Config },
  props: { mode: Mode; orgId: string; endpointId: string; deliveryId: string },
): Promise<{ eventId: string; endpointId: string }> {
  const endpoint = await findWebhookEndpoint(deps.db, props.mode, { orgId: props.orgId, id: props.endpointId });
  if (!endpoint) throw new NotFoundError(ENDPOINT_NOT_FOUND);
  const delivery = await findDelivery(deps.db, props.mode, { endpointId: endpoint.id, id: props.deliveryId });
  if (!delivery) throw new NotFoundError('Delivery not found');
  if (!endpoint.enabled) throw new ConflictError('WEBHOOK_ENDPOINT_DISABLED', 'The endpoint is disabled; enable it first (PATCH {"enabled": true})');
  await startWorkflow(deps.client, 'deliverWebhookWorkflow', {
    workflowId: `${deliveryWorkflowId(endpoint.id, delivery.eventId)}:retry:${newId('req')}`,
    taskQueue: deps.config.temporal.taskQueue,
    args: [{ endpointId: endpoint.id, eventId: delivery.eventId, livemode: endpoint.livemode, timing: deliveryTiming(deps.config), once: true }],
  });
  return { eventId: delivery.eventId, endpointId: endpoint.id };
}
