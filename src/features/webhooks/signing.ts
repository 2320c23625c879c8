import { hkdfSync, randomBytes } from 'node:crypto';
import { Webhook } from 'standardwebhooks';
import type { EventRow } from './events.repository.js';
import { presentEvent } from './event.presenter.js';

/** A new signing secret: `whsec_` and 32 random bytes in base64, the Standard Webhooks form. */
export function newSigningSecret(): string {
  return `whsec_${randomBytes(32).toString('base64')}`;
}

/**
 * The secret that signs what one person's event streams carry for one organisation and mode: derived
 * from KEY_HASH_SECRET (HKDF-SHA256), so it is the same on every api process and every run of
 * `domain-service webhooks listen`, and a developer sets it once in their local receiver. It is never an
 * endpoint's secret: a stream reader gets signatures no real endpoint would accept.
 */
export function streamSigningSecret(keyHashSecret: string, props: { userId: string; orgId: string; livemode: boolean }): string {
  const info = `event-stream|v1|${props.userId}|${props.orgId}|${props.livemode ? 'live' : 'test'}`;
  return `whsec_${Buffer.from(hkdfSync('sha256', keyHashSecret, 'domain-service webhooks', info, 32)).toString('base64')}`;
}

/**
 * Standard Webhooks headers for one message. Each secret adds a `v1,<signature>` to
 * `webhook-signature` (space-separated), so during a rotation receivers holding either secret verify.
 */
export function signedHeaders(props: { messageId: string; timestamp: Date; body: string; secrets: string[] }): Record<string, string> {
  const signatures = props.secrets.map((secret) => new Webhook(secret).sign(props.messageId, props.timestamp, props.body));
  return {
    'webhook-id': props.messageId,
    'webhook-timestamp': String(Math.floor(props.timestamp.getTime() / 1000)),
    'webhook-signature': signatures.join(' '),
  };
}

/** A webhook delivery's bytes and headers: what an endpoint receives, and what an event stream carries to forward. */
export interface SignedDelivery {
  body: string;
  headers: Record<string, string>;
}

/**
 * One event as a webhook POSTs it: the event JSON (as `GET …/events/{event_id}` answers it), signed now
 * with each secret. Webhook endpoints (src/features/webhooks/deliver.ts) and event streams
 * (src/features/webhooks/eventStream.ts) both send this, so a receiver cannot tell them apart.
 */
export function signedDelivery(event: EventRow, secrets: string[], now = new Date()): SignedDelivery {
  const body = JSON.stringify(presentEvent(event));
  return {
    body,
    headers: {
      'content-type': 'application/json',
      'user-agent': 'domain-service-webhooks/1',
      ...signedHeaders({ messageId: event.id, timestamp: now, body, secrets }),
    },
  };
}
