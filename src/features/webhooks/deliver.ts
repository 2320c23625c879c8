import { setTimeout as sleep } from 'node:timers/promises';
import { withTransaction, type Db, type Queryable } from '../../db/pool.js';
import { findEventById } from './events.repository.js';
import { insertDelivery } from './deliveries.repository.js';
import {
  findWebhookEndpointById,
  markEndpointHealthy,
  recordEndpointFailure,
  WEBHOOK_SECRETS_PURPOSE,
  type EndpointSecrets,
  type WebhookEndpoint,
} from './endpoints.repository.js';
import { openJson } from '../../db/sealedJson.js';
import { derivedId } from '../../ids.js';
import { presentWebhookEndpoint } from './endpoint.presenter.js';
import type { PayloadKeyring } from '../../temporal/payloadKeys.js';
import { addressPolicy, type DestinationSettings } from './addressPolicy.js';
import { LONGEST_WAIT_IN_ATTEMPT_MS, LONGEST_WAIT_UNDEFERRABLE_MS, paceKey } from './pacing.js';
import type { KeyedPacer } from '../../rateLimit/upstreamPacer.js';
import { sendWebhook, type Resolver } from './sender.js';
import { signedDelivery } from './signing.js';
import { emitEvent } from './emitEvent.js';
import { deliveryNoLongerWaiting, endpointDeliveriesNoLongerWaiting } from './deliveriesWaiting.repository.js';
import { modeOf, type Mode } from '../../db/modeScope.js';

export interface AttemptProps {
  db: Db;
  payloadKeys: PayloadKeyring;
  resolver: Resolver;
  /** WEBHOOK_ALLOW_PRIVATE and WEBHOOK_TEST_LOOPBACK */
  destinations: DestinationSettings;
  endpointId: string;
  eventId: string;
  livemode: boolean;
  /** Names the attempt for good (workflow id and its attempt counter): a retried activity records it once. */
  attemptKey: string;
  /** Paces deliveries per organisation and destination host (src/features/webhooks/pacing.ts). */
  pacer: KeyedPacer;
  /** The workflow waits for a later turn itself when told `paced`; runs started before pacing cannot. */
  mayDefer: boolean;
  timeoutMs: number;
  disableAfterMs: number;
}

export type AttemptOutcome =
  | { outcome: 'delivered' | 'failed'; deliveryId: string; disabledNow: boolean }
  | { outcome: 'endpoint_gone' | 'endpoint_disabled' | 'event_gone' }
  /** Nothing sent and nothing recorded: the destination host's next turn is `retryAfterMs` away. */
  | { outcome: 'paced'; retryAfterMs: number };

/** `432000000` → `5 days`: how long a failure streak lasted, for the owner's e-mail. */
function spoken(ms: number): string {
  const units: [number, string][] = [[86_400_000, 'day'], [3_600_000, 'hour'], [60_000, 'minute'], [1_000, 'second']];
  const [size, name] = units.find(([unit]) => ms >= unit) ?? [1, 'millisecond'];
  const count = Math.round(ms / size);
  return `${count} ${name}${count === 1 ? '' : 's'}`;
}

/** The secrets that sign now: the current one, and the previous one for 24 hours after a rotation. */
export function signingSecrets(payloadKeys: PayloadKeyring, endpoint: WebhookEndpoint, now = new Date()): string[] {
  const secrets = openJson<EndpointSecrets>(payloadKeys, WEBHOOK_SECRETS_PURPOSE, endpoint.secrets);
  const previousValid = secrets.previous !== null && endpoint.previousSecretExpiresAt !== null && endpoint.previousSecretExpiresAt > now;
  return previousValid ? [secrets.current, secrets.previous!] : [secrets.current];
}

/**
 * A failed attempt's consequence for its endpoint: the failure streak starts or goes on; a streak older
 * than `disableAfterMs` disables the endpoint, ends its deliveries' waiting and emits
 * `webhook_endpoint.disabled`, in the caller's transaction. True when this call disabled it (the
 * caller e-mails the owners).
 */
export async function endpointFailed(tx: Queryable, mode: Mode, props: { endpoint: Pick<WebhookEndpoint, 'id'>; disableAfterMs: number; error: string }): Promise<boolean> {
  const disabled = await recordEndpointFailure(tx, mode, {
    id: props.endpoint.id,
    disableAfterMs: props.disableAfterMs,
    reason: `every delivery failed for ${spoken(props.disableAfterMs)}; the last: ${props.error}`,
  });
  if (!disabled) return false;
  await endpointDeliveriesNoLongerWaiting(tx, mode, disabled.id);
  await emitEvent({
    db: tx,
    orgId: disabled.orgId,
    livemode: disabled.livemode,
    type: 'webhook_endpoint.disabled',
    object: presentWebhookEndpoint(disabled),
    dedupeSeed: `endpoint-disabled|${disabled.id}|${disabled.updatedAt.toISOString()}`,
  });
  return true;
}

/**
 * One delivery attempt of a deliverWebhookWorkflow run (deliveries dispatched before the endpoint
 * queues; new ones go through drain.ts): first a turn at the destination host (waited for here when it is near, else
 * `paced`: nothing sent, nothing recorded, no failure counted), then the event POSTed, signed, to the
 * endpoint as it is now (a changed URL or a rotated secret applies to the next attempt), and the
 * attempt recorded. A failure starts or extends
 * the endpoint's failure streak; a streak older than `disableAfterMs` disables the endpoint and emits
 * `webhook_endpoint.disabled` in the same transaction (`disabledNow`: the caller e-mails the owners).
 */
export async function attemptDelivery(props: AttemptProps): Promise<AttemptOutcome> {
  const mode = modeOf(props.livemode);
  const endpoint = await findWebhookEndpointById(props.db, mode, props.endpointId);
  if (!endpoint) return { outcome: 'endpoint_gone' };
  if (!endpoint.enabled) return { outcome: 'endpoint_disabled' };
  const event = await findEventById(props.db, mode, props.eventId);
  if (!event) return { outcome: 'event_gone' };
  const turn = await props.pacer.reserve(paceKey(endpoint), props.mayDefer ? LONGEST_WAIT_IN_ATTEMPT_MS : LONGEST_WAIT_UNDEFERRABLE_MS);
  if (!turn.granted && props.mayDefer) return { outcome: 'paced', retryAfterMs: turn.waitMs };
  if (turn.granted && turn.waitMs > 0) await sleep(turn.waitMs);

  const { body, headers } = signedDelivery(event, signingSecrets(props.payloadKeys, endpoint));
  const sent = await sendWebhook({ url: endpoint.url, body, headers, timeoutMs: props.timeoutMs, policy: addressPolicy(props.destinations, mode), resolver: props.resolver });
  const deliveryId = derivedId('wd', props.attemptKey);
  const delivered = sent.error === null;

  const disabledNow = await withTransaction(props.db, async (tx) => {
    await insertDelivery(tx, mode, { id: deliveryId, endpointId: endpoint.id, eventId: event.id, statusCode: sent.statusCode, durationMs: sent.durationMs, error: sent.error });
    if (delivered) {
      await markEndpointHealthy(tx, mode, endpoint.id);
      await deliveryNoLongerWaiting(tx, mode, { endpointId: endpoint.id, eventId: event.id });
      return false;
    }
    return endpointFailed(tx, mode, { endpoint, disableAfterMs: props.disableAfterMs, error: sent.error! });
  });
  return { outcome: delivered ? 'delivered' : 'failed', deliveryId, disabledNow };
}
