import { continueAsNew, patched, proxyActivities, sleep, workflowInfo } from '@temporalio/workflow';
import type { WebhookActivities } from './activities.js';
import type { DeliverWebhookInput, DeliverWebhookResult, DispatchEventsInput } from './webhooks.contract.js';
import { SCHEDULED_RETRIES, type ScheduledRunInput } from '../../temporal/retries.contract.js';
import { retryPolicy } from '../../temporal/retries.workflow.js';

// Our own database and SMTP server: retried until they answer; a 5xx refusal of an address is final.
const mail = proxyActivities<WebhookActivities>({
  startToCloseTimeout: '1 minute',
  retry: { initialInterval: '1 second', backoffCoefficient: 2, maximumInterval: '10 minutes', nonRetryableErrorTypes: ['MAIL_REJECTED'] },
});

/**
 * Runs started from here on are told when their destination host's next turn is too far off to wait
 * for inside the attempt (`paced`) and wait for it on a timer, without counting an attempt. Runs
 * started before send without that (their attempt waits its turn briefly itself), so their recorded
 * histories replay unchanged. Asked once, at the start of the run.
 */
export const PACED_DELIVERY_PATCH = 'webhook-paced-delivery';

/**
 * One event to one endpoint, per the Standard Webhooks retry rules: an attempt now, then after
 * `initialRetryMs`, doubling up to `maxRetryIntervalMs`, until a 2xx or until `retryForMs` has passed
 * since the first. Each endpoint's deliveries are their own workflows and each attempt is bounded by
 * `timeoutMs`, so a slow or dead receiver delays nobody else. An endpoint disabled by a failure here
 * (its failure streak passed `disableAfterMs`) gets its owners e-mailed.
 */
export async function deliverWebhookWorkflow(input: DeliverWebhookInput): Promise<DeliverWebhookResult> {
  const { timing } = input;
  // The HTTP exchange is bounded by timeoutMs; the rest is our database. A retried attempt may POST
  // again: receivers deduplicate on `webhook-id`, as Standard Webhooks asks of them.
  const delivery = proxyActivities<WebhookActivities>({
    startToCloseTimeout: timing.timeoutMs + 30_000,
    retry: { initialInterval: '1 second', backoffCoefficient: 2, maximumInterval: '1 minute', maximumAttempts: 10 },
  });
  const { workflowId } = workflowInfo();
  const mayDefer = patched(PACED_DELIVERY_PATCH);
  /** One attempt, after as many turns at the destination host as it takes: a paced turn is no attempt. */
  async function attemptInTurn(attempt: number) {
    for (;;) {
      const result = await delivery.attemptWebhookDelivery({
        endpointId: input.endpointId,
        eventId: input.eventId,
        livemode: input.livemode,
        attemptKey: `${workflowId}|${attempt}`,
        timeoutMs: timing.timeoutMs,
        disableAfterMs: timing.disableAfterMs,
        ...(mayDefer ? { mayDefer } : {}),
      });
      if (result.outcome !== 'paced') return result;
      await sleep(result.retryAfterMs);
    }
  }
  const firstAttemptAt = Date.now();
  let wait = timing.initialRetryMs;
  for (let attempt = 1; ; attempt += 1) {
    const result = await attemptInTurn(attempt);
    if (result.outcome !== 'delivered' && result.outcome !== 'failed') return { outcome: result.outcome, attempts: attempt - 1 };
    if (result.outcome === 'delivered') return { outcome: 'delivered', attempts: attempt };
    if (result.disabledNow) {
      await mail.mailWebhookEndpointDisabled({ endpointId: input.endpointId, livemode: input.livemode });
      return { outcome: 'endpoint_disabled', attempts: attempt };
    }
    if (input.once) return { outcome: 'failed', attempts: attempt };
    if (Date.now() + wait - firstAttemptAt > timing.retryForMs) return { outcome: 'gave_up', attempts: attempt };
    await sleep(wait);
    wait = Math.min(wait * 2, timing.maxRetryIntervalMs);
  }
}

/**
 * The outbox dispatcher (`event-dispatcher:<task queue>`, started at worker start): one long,
 * heartbeating activity run, then a fresh run of the workflow, so its history stays short forever.
 */
export async function dispatchEventsWorkflow(input: DispatchEventsInput): Promise<never> {
  const dispatcher = proxyActivities<WebhookActivities>({
    startToCloseTimeout: input.runForMs + 60_000,
    heartbeatTimeout: '30 seconds',
    retry: { initialInterval: '1 second', backoffCoefficient: 2, maximumInterval: '30 seconds' },
  });
  await dispatcher.runEventDispatcher(input);
  return continueAsNew<(input: DispatchEventsInput) => Promise<never>>(input);
}

/** Run by the `events-purge` schedule: events older than 30 days go, with their delivery attempts. */
export async function purgeEventsWorkflow(input: ScheduledRunInput = {}): Promise<{ purged: number }> {
  const { purgeOldEvents } = proxyActivities<WebhookActivities>({
    startToCloseTimeout: '5 minutes',
    retry: retryPolicy(input.retry ?? SCHEDULED_RETRIES.purgeEventsWorkflow),
  });
  return { purged: await purgeOldEvents() };
}
