import { defineSignal } from '@temporalio/workflow';

/** How a webhook delivery is paced: every duration its workflow waits, so tests run 3 days in seconds. */
export interface WebhookDeliveryTiming {
  /** One POST, connection to last byte (10 s). */
  timeoutMs: number;
  /** The wait after the first failed attempt; doubled after each further one, up to `maxRetryIntervalMs`. */
  initialRetryMs: number;
  maxRetryIntervalMs: number;
  /** No attempt is made later than this after the first (3 days). */
  retryForMs: number;
  /** An endpoint whose every attempt has failed for this long is disabled (5 days). */
  disableAfterMs: number;
}

export interface DeliverWebhookInput {
  endpointId: string;
  eventId: string;
  livemode: boolean;
  timing: WebhookDeliveryTiming;
  /** One attempt, no retries: `POST …/deliveries/{delivery_id}/retry`. */
  once?: boolean;
}

export interface DeliverWebhookResult {
  /** `endpoint_gone`: deleted, or disabled before the attempt; `event_gone`: purged (30 days). */
  outcome: 'delivered' | 'failed' | 'gave_up' | 'endpoint_disabled' | 'endpoint_gone' | 'event_gone';
  attempts: number;
}

export interface DispatchEventsInput {
  /** How long one run of the dispatching activity goes on before the workflow continues as new. */
  runForMs: number;
  /** How often the outbox is read when no notification arrives (a safety net for lost notifications). */
  pollMs: number;
  /** Events handled per transaction. */
  batch: number;
  timing: WebhookDeliveryTiming;
}

/** One endpoint's queue, drained by its workflow `webhook-endpoint:<endpoint id>` (src/features/webhooks/drain.ts). */
export interface EndpointQueueInput {
  endpointId: string;
  livemode: boolean;
  timing: WebhookDeliveryTiming;
  /** How long the workflow waits for a wake with its queue empty before it ends (the next dispatch starts it again). */
  idleMs: number;
  /** Drains per run before it continues as new (DRAINS_PER_RUN, src/features/webhooks/endpointQueue.workflow.ts; tests pass fewer). */
  drainsPerRun?: number;
}

export interface DrainEndpointResult {
  /**
   * `empty`: nothing queued; `more`: the drain ran its time and more is due; `waiting`: the head is
   * due in `nextInMs` (a retry); `paced`: the host's next turn is `nextInMs` away; `endpoint_disabled`
   * (`disabledNow`: by this drain, the owners are to be e-mailed) and `endpoint_gone`: the workflow ends.
   */
  outcome: 'empty' | 'more' | 'waiting' | 'paced' | 'endpoint_disabled' | 'endpoint_gone';
  /** Attempts made. */
  sent: number;
  nextInMs?: number;
  disabledNow?: boolean;
}

export interface EndpointQueueResult {
  outcome: 'idle' | 'endpoint_disabled' | 'endpoint_gone';
  /** Attempts made by this run. */
  sent: number;
}

/** How long one drain activity sends before it hands back to its workflow. */
export const DRAIN_RUN_MS = 30_000;

/** Deliveries were queued for the endpoint: its workflow drains at once. */
export const deliveriesQueuedSignal = defineSignal('deliveriesQueued');
