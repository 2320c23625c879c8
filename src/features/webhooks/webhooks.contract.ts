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
