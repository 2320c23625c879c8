import { Counter, Gauge, type Registry } from 'prom-client';
import { MODES } from '../../metrics/registry.js';

/** Why a recipient was refused: no alias or not ours (550), or its domain's hourly limit (451). */
export const REFUSAL_REASONS = ['recipient', 'rate_limit'] as const;
export type RefusalReason = (typeof REFUSAL_REASONS)[number];

/**
 * The mail forwarder's metrics, by mode (`live`, `test`): recipients accepted and refused at RCPT
 * (the policy service and Postfix's log), messages forwarded and deferred (Postfix's log), and the
 * deferred queue's size (`MailForwardingDeferredQueueGrowing` in deploy/prometheus/alerts.yml).
 */
export interface MailMetrics {
  accepted: Counter<'mode'>;
  refused: Counter<'mode' | 'reason'>;
  forwarded: Counter<'mode'>;
  deferred: Counter<'mode'>;
  deferredQueue: Gauge<'mode'>;
}

export function createMailMetrics(registry: Registry): MailMetrics {
  const metrics: MailMetrics = {
    accepted: new Counter({ name: 'mail_forwarding_accepted_total', help: 'Recipients accepted at RCPT for forwarding', labelNames: ['mode'], registers: [registry] }),
    refused: new Counter({ name: 'mail_forwarding_refused_total', help: 'Recipients refused at RCPT: no such alias or not ours (550), or past the domain’s hourly limit (451)', labelNames: ['mode', 'reason'], registers: [registry] }),
    forwarded: new Counter({ name: 'mail_forwarding_forwarded_total', help: 'Deliveries of forwarded mail the next hop accepted', labelNames: ['mode'], registers: [registry] }),
    deferred: new Counter({ name: 'mail_forwarding_deferred_total', help: 'Delivery attempts of forwarded mail deferred (to be tried again)', labelNames: ['mode'], registers: [registry] }),
    deferredQueue: new Gauge({ name: 'mail_forwarding_deferred_queue', help: 'Messages in the forwarder’s deferred queue', labelNames: ['mode'], registers: [registry] }),
  };
  for (const mode of MODES) {
    metrics.accepted.inc({ mode }, 0);
    metrics.forwarded.inc({ mode }, 0);
    metrics.deferred.inc({ mode }, 0);
    metrics.deferredQueue.set({ mode }, 0);
    for (const reason of REFUSAL_REASONS) metrics.refused.inc({ mode, reason }, 0);
  }
  return metrics;
}
