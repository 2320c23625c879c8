import { randomBytes } from 'node:crypto';
import { Webhook } from 'standardwebhooks';

/** A new signing secret: `whsec_` and 32 random bytes in base64, the Standard Webhooks form. */
export function newSigningSecret(): string {
  return `whsec_${randomBytes(32).toString('base64')}`;
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
