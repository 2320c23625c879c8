import type { Config } from '../../config.js';
import type { DispatchEventsInput, WebhookDeliveryTiming } from './webhooks.contract.js';

/** The delivery workflow's durations from the configuration (WEBHOOK_* in docs/configuration.md). */
export function deliveryTiming(config: Pick<Config, 'webhooks'>): WebhookDeliveryTiming {
  const { timeoutMs, initialRetryMs, maxRetryIntervalMs, retryForMs, disableAfterMs } = config.webhooks;
  return { timeoutMs, initialRetryMs, maxRetryIntervalMs, retryForMs, disableAfterMs };
}

/** One workflow per endpoint drains its queue (src/features/webhooks/endpointQueue.workflow.ts). */
export function endpointQueueWorkflowId(endpointId: string): string {
  return `webhook-endpoint:${endpointId}`;
}

/** How long an endpoint's workflow waits with its queue empty before it ends (the next dispatch starts another). */
export const ENDPOINT_QUEUE_IDLE_MS = 5 * 60_000;

/**
 * The workflow of one (endpoint, event), as deliveries dispatched before the endpoint queues ran, and
 * as a one-off retry (`POST …/deliveries/{delivery_id}/retry`) still runs.
 */
export function deliveryWorkflowId(endpointId: string, eventId: string): string {
  return `webhook:${endpointId}:${eventId}`;
}

/** The deployment's one dispatcher, named after its task queue like the schedules (src/worker/schedules.ts). */
export function dispatcherWorkflowId(config: Pick<Config, 'temporal'>): string {
  return `event-dispatcher:${config.temporal.taskQueue}`;
}

export function dispatcherInput(config: Pick<Config, 'webhooks'>): DispatchEventsInput {
  return { runForMs: 10 * 60_000, pollMs: 5_000, batch: 100, timing: deliveryTiming(config) };
}
