import type { Config } from '../../config.js';
import type { DispatchEventsInput, WebhookDeliveryTiming } from './webhooks.contract.js';

/** The delivery workflow's durations from the configuration (WEBHOOK_* in docs/configuration.md). */
export function deliveryTiming(config: Pick<Config, 'webhooks'>): WebhookDeliveryTiming {
  const { timeoutMs, initialRetryMs, maxRetryIntervalMs, retryForMs, disableAfterMs } = config.webhooks;
  return { timeoutMs, initialRetryMs, maxRetryIntervalMs, retryForMs, disableAfterMs };
}

/** One delivery workflow per (endpoint, event): a second dispatch of the pair finds the first. */
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
