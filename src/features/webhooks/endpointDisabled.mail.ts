import type { MailMessage } from '../../mail/mailer.js';

export interface WebhookDisabledNoticeProps {
  to: string;
  orgId: string;
  endpoint: { id: string; url: string; livemode: boolean; disabledReason: string | null };
  disabledAt: Date;
}

/** The e-mail to an organisation's owners when an endpoint that kept failing was turned off. */
export function webhookDisabledNotice(props: WebhookDisabledNoticeProps): MailMessage {
  const { endpoint } = props;
  const mode = endpoint.livemode ? 'live' : 'test';
  const lines = [
    'Hello,',
    '',
    `The ${mode}-mode webhook endpoint ${endpoint.id} of organisation ${props.orgId}`,
    `(${endpoint.url}) has been disabled: ${endpoint.disabledReason ?? 'its deliveries kept failing'}.`,
    '',
    'No more events are sent to it. Once the receiver answers 2xx again, turn it back on with',
    `PATCH /api/v1/orgs/${props.orgId}/webhook-endpoints/${endpoint.id} {"enabled": true};`,
    `GET /api/v1/orgs/${props.orgId}/webhook-endpoints/${endpoint.id}/deliveries shows each failed attempt,`,
    `and GET /api/v1/orgs/${props.orgId}/events lists the events it missed (kept 30 days).`,
    '',
    '-- ',
    'Domain Service',
  ];
  return {
    to: props.to,
    subject: `Webhook endpoint disabled: ${endpoint.url}`,
    text: lines.join('\n'),
    date: props.disabledAt,
    idempotencyKey: `webhook-disabled:${endpoint.id}:${props.disabledAt.getTime()}:${props.to}`,
  };
}
