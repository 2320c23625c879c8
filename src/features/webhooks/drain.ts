import { setTimeout as sleep } from 'node:timers/promises';
import { withTransaction, type Db } from '../../db/pool.js';
import { modeOf, type Mode } from '../../db/modeScope.js';
import { derivedId } from '../../ids.js';
import type { KeyedPacer } from '../../rateLimit/upstreamPacer.js';
import type { PayloadKeyring } from '../../temporal/payloadKeys.js';
import { addressPolicy, type DestinationSettings } from './addressPolicy.js';
import { endpointFailed, signingSecrets } from './deliver.js';
import { dequeueDeliveries, logAttempts, markQueueAsleep, queueHead, recordAccepted, rescheduleDelivery, type AttemptRecord, type QueuedDelivery } from './deliveryQueue.repository.js';
import { findWebhookEndpointById, markEndpointHealthy, type WebhookEndpoint } from './endpoints.repository.js';
import { eventsByIds, type EventRow } from './events.repository.js';
import { LONGEST_WAIT_IN_ATTEMPT_MS, paceKey } from './pacing.js';
import { sendWebhook, type Resolver } from './sender.js';
import { signedDelivery } from './signing.js';
import type { DrainEndpointResult, WebhookDeliveryTiming } from './webhooks.contract.js';

export interface DrainProps {
  db: Db;
  payloadKeys: PayloadKeyring;
  resolver: Resolver;
  destinations: DestinationSettings;
  pacer: KeyedPacer;
  endpointId: string;
  livemode: boolean;
  timing: WebhookDeliveryTiming;
  /** Deliveries read from the queue's head at a time. */
  batch: number;
  /** How long one drain goes on before it hands back to its workflow (`more`). */
  runForMs: number;
  /** Called after every send: the activity heartbeats, so a dead worker's drain moves on in seconds. */
  onProgress?: () => void;
  /** Each attempt made, for the metrics. */
  onAttempt?: (outcome: 'delivered' | 'failed', seconds: number) => void;
}

/** The wait after the n-th failed attempt (1-based): `initialRetryMs`, doubling, up to `maxRetryIntervalMs`. */
export function retryWaitMs(timing: WebhookDeliveryTiming, failedAttempts: number): number {
  return Math.min(timing.initialRetryMs * 2 ** Math.max(0, failedAttempts - 1), timing.maxRetryIntervalMs);
}

/** Accepted deliveries, logged and taken out of the queue in one transaction, a few sends at a time. */
class Accepted {
  private attempts: AttemptRecord[] = [];
  constructor(
    private readonly db: Db,
    private readonly mode: Mode,
    private readonly endpoint: WebhookEndpoint,
  ) {}

  private firstAt = 0;

  add(attempt: AttemptRecord): void {
    if (this.attempts.length === 0) this.firstAt = Date.now();
    this.attempts.push(attempt);
  }

  /** Time to record: FLUSH_EVERY deliveries, or the oldest unrecorded one FLUSH_AFTER_MS old. */
  get due(): boolean {
    return this.attempts.length >= FLUSH_EVERY || (this.attempts.length > 0 && Date.now() - this.firstAt >= FLUSH_AFTER_MS);
  }

  async flush(): Promise<void> {
    const attempts = this.attempts.splice(0);
    if (attempts.length === 0) return;
    if (!this.endpoint.failingSince) {
      await recordAccepted(this.db, this.mode, this.endpoint.id, attempts);
      return;
    }
    await withTransaction(this.db, async (tx) => {
      await recordAccepted(tx, this.mode, this.endpoint.id, attempts);
      await markEndpointHealthy(tx, this.mode, this.endpoint.id);
    });
    this.endpoint.failingSince = null;
  }
}

/** Sends recorded together at most: a crash resends at most this many accepted deliveries (at-least-once). */
const FLUSH_EVERY = 20;
/** And none waits longer than this to be recorded, so a crash resends only the last moment's. */
const FLUSH_AFTER_MS = 250;

/**
 * Drains an endpoint's queue from its head, oldest first, one delivery after the other so the
 * endpoint sees them in the order they were committed (docs/api-guide.md, Webhooks and events): each
 * takes its turn at the destination host (src/features/webhooks/pacing.ts; a turn too far off ends the
 * drain, `paced`), is POSTed signed as deliver.ts does, and is logged. A failure stops the drain: the
 * delivery is retried on its Standard Webhooks schedule (`next_attempt_at`) and those behind it wait,
 * so a dead receiver costs one attempt per retry, not one per delivery, and holds only its own queue.
 * A delivery past its retry window (`retryForMs` after its first attempt) is given up and the next
 * one tried. The endpoint's failure streak and its disabling are deliver.ts's (endpointFailed).
 */
export async function drainEndpointQueue(props: DrainProps): Promise<DrainEndpointResult> {
  const mode = modeOf(props.livemode);
  const endpoint = await findWebhookEndpointById(props.db, mode, props.endpointId);
  if (!endpoint) return { outcome: 'endpoint_gone', sent: 0 };
  if (!endpoint.enabled) {
    await markQueueAsleep(props.db, endpoint.id);
    return { outcome: 'endpoint_disabled', sent: 0 };
  }
  const deadline = Date.now() + props.runForMs;
  const accepted = new Accepted(props.db, mode, endpoint);
  const policy = addressPolicy(props.destinations, mode);
  let sent = 0;
  let asleep = false;
  try {
    for (;;) {
      const head = await queueHead(props.db, mode, { endpointId: endpoint.id, limit: props.batch });
      if (head.length === 0) {
        if (asleep) return { outcome: 'empty', sent };
        // Asleep first, then read once more: a dispatch committed in between is read now, one after wakes us.
        await markQueueAsleep(props.db, endpoint.id);
        asleep = true;
        continue;
      }
      const events = new Map((await eventsByIds(props.db, head.map((d) => d.eventId))).map((event) => [event.id, event]));
      const gone = head.filter((d) => !events.has(d.eventId)).map((d) => d.eventId);
      // Purged (30 days) or never there: nothing to send.
      await dequeueDeliveries(props.db, mode, { endpointId: endpoint.id, eventIds: gone });
      for (const delivery of head) {
        const event = events.get(delivery.eventId);
        if (!event) continue;
        const dueInMs = delivery.nextAttemptAt ? delivery.nextAttemptAt.getTime() - Date.now() : 0;
        if (dueInMs > 0) return { outcome: 'waiting', sent, nextInMs: dueInMs };
        if (Date.now() > deadline) return { outcome: 'more', sent };
        const turn = await props.pacer.reserve(paceKey(endpoint), LONGEST_WAIT_IN_ATTEMPT_MS);
        if (!turn.granted) return { outcome: 'paced', sent, nextInMs: turn.waitMs };
        if (turn.waitMs > 0) await sleep(turn.waitMs);
        const attempt = await send(props, endpoint, event, delivery, policy);
        sent += 1;
        props.onProgress?.();
        props.onAttempt?.(attempt.error === null ? 'delivered' : 'failed', attempt.durationMs / 1_000);
        if (attempt.error === null) {
          accepted.add(attempt);
          if (accepted.due) await accepted.flush();
          continue;
        }
        await accepted.flush();
        const failure = await recordFailure(props, endpoint, delivery, attempt);
        if (failure.disabledNow) {
          await markQueueAsleep(props.db, endpoint.id);
          return { outcome: 'endpoint_disabled', sent, disabledNow: true };
        }
        if (failure.retryInMs !== null) return { outcome: 'waiting', sent, nextInMs: failure.retryInMs };
      }
      // The batch went: flushed before the next head is read, so it is not read again.
      await accepted.flush();
      if (head.length < props.batch && !asleep) {
        // The queue held no more than this when read: asleep now, then one more read (as above).
        await markQueueAsleep(props.db, endpoint.id);
        asleep = true;
      }
    }
  } finally {
    await accepted.flush();
  }
}

async function send(
  props: DrainProps,
  endpoint: WebhookEndpoint,
  event: EventRow,
  delivery: QueuedDelivery,
  policy: ReturnType<typeof addressPolicy>,
): Promise<AttemptRecord> {
  const { body, headers } = signedDelivery(event, signingSecrets(props.payloadKeys, endpoint));
  const sent = await sendWebhook({ url: endpoint.url, body, headers, timeoutMs: props.timing.timeoutMs, policy, resolver: props.resolver });
  // Names the attempt for good: a retried drain logs it once.
  const id = derivedId('wd', `queue|${endpoint.id}|${event.id}|${delivery.attempts + 1}`);
  return { id, eventId: event.id, statusCode: sent.statusCode, durationMs: sent.durationMs, error: sent.error };
}

/**
 * A failed attempt logged, the endpoint's failure streak extended (disabling it when the streak is
 * long enough), and the delivery rescheduled, or given up past its window (`retryInMs` null).
 */
async function recordFailure(
  props: DrainProps,
  endpoint: WebhookEndpoint,
  delivery: QueuedDelivery,
  attempt: AttemptRecord,
): Promise<{ disabledNow: boolean; retryInMs: number | null }> {
  const mode = modeOf(props.livemode);
  const { timing } = props;
  const wait = retryWaitMs(timing, delivery.attempts + 1);
  const firstAt = delivery.firstAttemptAt?.getTime() ?? Date.now();
  const givesUp = Date.now() + wait - firstAt > timing.retryForMs;
  return withTransaction(props.db, async (tx) => {
    await logAttempts(tx, mode, endpoint.id, [attempt]);
    if (givesUp) await dequeueDeliveries(tx, mode, { endpointId: endpoint.id, eventIds: [delivery.eventId] });
    else await rescheduleDelivery(tx, mode, { endpointId: endpoint.id, eventId: delivery.eventId, retryInMs: wait, retryForMs: timing.retryForMs });
    const disabledNow = await endpointFailed(tx, mode, { endpoint, disableAfterMs: timing.disableAfterMs, error: attempt.error! });
    endpoint.failingSince ??= new Date();
    return { disabledNow, retryInMs: givesUp ? null : wait };
  });
}
