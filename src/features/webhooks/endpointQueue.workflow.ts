import { condition, continueAsNew, proxyActivities, setHandler, workflowInfo } from '@temporalio/workflow';
import type { createWebhookActivities } from './activities.js';
import { DRAIN_RUN_MS, deliveriesQueuedSignal, type EndpointQueueInput, type EndpointQueueResult } from './webhooks.contract.js';

type WebhookActivities = ReturnType<typeof createWebhookActivities>;

/** Drains per run before the run continues as new, so its history stays short however long it lives. */
export const DRAINS_PER_RUN = 100;

// Our own database and SMTP server: retried until they answer; a 5xx refusal of an address is final.
const mail = proxyActivities<WebhookActivities>({
  startToCloseTimeout: '1 minute',
  retry: { initialInterval: '1 second', backoffCoefficient: 2, maximumInterval: '10 minutes', nonRetryableErrorTypes: ['MAIL_REJECTED'] },
});

/**
 * One endpoint's deliveries (workflow id `webhook-endpoint:<endpoint id>`, woken by the dispatcher
 * with signal-with-start): its queue in PostgreSQL is drained in batches by an activity, oldest first
 * (src/features/webhooks/drain.ts), then the run waits: for a wake while the queue is empty, for a
 * timer while its head waits for a retry or for a turn at the destination host. The retry schedule is
 * each delivery's row, not this history, so a burst costs a few workflow tasks per endpoint, not a
 * workflow per delivery. Idle for `idleMs`, the run ends; disabled or deleted, it ends after the
 * owners are e-mailed (disabled by one of its failures). A dead receiver holds only this run.
 */
export async function deliverEndpointWebhooksWorkflow(input: EndpointQueueInput): Promise<EndpointQueueResult> {
  const { timing } = input;
  // A drain heartbeats after each send (bounded by timeoutMs) and each turn (waited up to 1 s):
  // a worker that dies mid-drain is noticed in seconds and the drain runs again from the queue.
  const queue = proxyActivities<WebhookActivities>({
    startToCloseTimeout: DRAIN_RUN_MS + timing.timeoutMs + 60_000,
    heartbeatTimeout: timing.timeoutMs + 10_000,
    retry: { initialInterval: '1 second', backoffCoefficient: 2, maximumInterval: '1 minute' },
  });
  let woken = false;
  setHandler(deliveriesQueuedSignal, () => {
    woken = true;
  });
  let sent = 0;
  const drainsPerRun = input.drainsPerRun ?? DRAINS_PER_RUN;
  for (let drains = 0; drains < drainsPerRun && !workflowInfo().continueAsNewSuggested; drains += 1) {
    woken = false;
    const result = await queue.drainEndpointQueue({ endpointId: input.endpointId, livemode: input.livemode, timing });
    sent += result.sent;
    if (result.outcome === 'endpoint_gone') return { outcome: 'endpoint_gone', sent };
    if (result.outcome === 'endpoint_disabled') {
      if (result.disabledNow) await mail.mailWebhookEndpointDisabled({ endpointId: input.endpointId, livemode: input.livemode });
      return { outcome: 'endpoint_disabled', sent };
    }
    if (result.outcome === 'more') continue;
    if (result.outcome === 'empty') {
      if (!(await condition(() => woken, input.idleMs)) && !woken) return { outcome: 'idle', sent };
      continue;
    }
    // `waiting` (the head's retry) or `paced` (the host's turn): what is queued behind waits too. A wake
    // cuts it short (the queue was emptied meanwhile, by disabling the endpoint, and filled again).
    await condition(() => woken, Math.max(1, result.nextInMs ?? 1_000));
  }
  return continueAsNew<typeof deliverEndpointWebhooksWorkflow>(input);
}
