import { ApplicationFailure, Context } from '@temporalio/activity';
import type { Redis } from 'ioredis';
import pg from 'pg';
import type { Config } from '../../config.js';
import { connectionConfig, type Db } from '../../db/pool.js';
import { EVENTS_CHANNEL, purgeEventsOlderThan } from './events.repository.js';
import { listOwnerEmails } from '../../auth/memberships.js';
import { findWebhookEndpointById } from './endpoints.repository.js';
import type { Logger } from '../../logger.js';
import { modeLabel, type Metrics, type WebhookAttemptOutcome } from '../../metrics/registry.js';
import { MailRejectedError, type Mailer } from '../../mail/mailer.js';
import { webhookDisabledNotice } from './endpointDisabled.mail.js';
import { attemptDelivery, type AttemptOutcome } from './deliver.js';
import { dispatchEvents } from './dispatch.js';
import { purgeDeliveriesGivenUp } from './deliveriesWaiting.repository.js';
import { createKeyedPacer } from '../../rateLimit/upstreamPacer.js';
import type { Temporal } from '../../temporal/client.js';
import type { PayloadKeyring } from '../../temporal/payloadKeys.js';
import { systemResolver, type Resolver } from './sender.js';
import type { DispatchEventsInput } from './webhooks.contract.js';
import { modeOf } from '../../db/modeScope.js';

/** Events are kept 30 days (docs/api-guide.md, Webhooks and events); their delivery attempts go with them. */
export const EVENT_RETENTION_DAYS = 30;

export interface WebhookActivityDeps {
  config: Config;
  db: Db;
  /** Paces deliveries per organisation and destination host, across every worker. */
  redis: Redis;
  logger: Logger;
  temporal: Temporal;
  payloadKeys: PayloadKeyring;
  mailer: Mailer;
  metrics: Metrics;
  /** How endpoint host names are resolved at send time; tests inject one. */
  webhookResolver?: Resolver;
}

/** Resolves after `ms`, at the next notification, or when the signal aborts, whichever is first. */
function nextWake(ms: number, wake: { pending: boolean; resolve?: () => void }, signal: AbortSignal): Promise<void> {
  if (wake.pending || signal.aborted) return Promise.resolve();
  return new Promise((resolve) => {
    const timer = setTimeout(done, ms);
    signal.addEventListener('abort', done, { once: true });
    wake.resolve = done;
    function done() {
      clearTimeout(timer);
      signal.removeEventListener('abort', done);
      wake.resolve = undefined;
      resolve();
    }
  });
}

export function createWebhookActivities(deps: WebhookActivityDeps) {
  const { db, logger } = deps;
  const resolver = deps.webhookResolver ?? systemResolver;
  const pacer = createKeyedPacer({ redis: deps.redis, logger, name: 'webhook-host', perMinute: deps.config.webhooks.hostPerMinute });
  return {
    /**
     * The outbox dispatcher: for `runForMs`, hands undispatched events to delivery as soon as their
     * transaction commits (PostgreSQL LISTEN on the channel insertEvent notifies), and every `pollMs`
     * in case a notification was missed. Heartbeats, so a dead worker's run moves to another in seconds.
     */
    async runEventDispatcher(input: DispatchEventsInput): Promise<number> {
      const context = Context.current();
      const listener = new pg.Client(connectionConfig(deps.config.databaseUrl));
      const wake: { pending: boolean; resolve?: () => void } = { pending: true };
      listener.on('notification', () => {
        wake.pending = true;
        wake.resolve?.();
      });
      listener.on('error', (err) => logger.warn({ err }, 'event dispatcher lost its LISTEN connection; polling until the next run'));
      await listener.connect();
      let dispatched = 0;
      try {
        await listener.query(`LISTEN ${EVENTS_CHANNEL}`);
        const deadline = Date.now() + input.runForMs;
        while (Date.now() < deadline && !context.cancellationSignal.aborted) {
          wake.pending = false;
          let handled: number;
          do {
            handled = await dispatchEvents({ db, client: deps.temporal.client, taskQueue: deps.config.temporal.taskQueue, timing: input.timing, batch: input.batch });
            dispatched += handled;
            context.heartbeat();
          } while (handled === input.batch);
          await nextWake(Math.min(input.pollMs, Math.max(0, deadline - Date.now())), wake, context.cancellationSignal);
        }
      } finally {
        await listener.end().catch(() => undefined);
      }
      return dispatched;
    },

    /** One attempt of one delivery (src/features/webhooks/deliver.ts); HTTP failures are results, not errors. */
    async attemptWebhookDelivery(input: {
      endpointId: string;
      eventId: string;
      livemode: boolean;
      attemptKey: string;
      timeoutMs: number;
      disableAfterMs: number;
      /** Sent by runs that wait for a `paced` attempt's turn themselves (src/features/webhooks/webhooks.workflow.ts). */
      mayDefer?: boolean;
    }): Promise<AttemptOutcome> {
      const started = performance.now();
      const attempt = await attemptDelivery({
        ...input,
        mayDefer: input.mayDefer ?? false,
        db,
        payloadKeys: deps.payloadKeys,
        resolver,
        destinations: deps.config.webhooks,
        pacer,
      });
      // Not an attempt: nothing was sent.
      if (attempt.outcome === 'paced') return attempt;
      const mode = modeLabel(input.livemode);
      const outcome: WebhookAttemptOutcome = attempt.outcome;
      deps.metrics.webhookAttempts.observe({ outcome, mode }, (performance.now() - started) / 1_000);
      if ('disabledNow' in attempt && attempt.disabledNow) deps.metrics.webhookEndpointsDisabled.inc({ mode });
      return attempt;
    },

    /** The owners of an endpoint's organisation hear that it was disabled; a retried send is the same message. */
    async mailWebhookEndpointDisabled(input: { endpointId: string; livemode: boolean }): Promise<number> {
      const endpoint = await findWebhookEndpointById(db, modeOf(input.livemode), input.endpointId);
      if (!endpoint || endpoint.enabled) return 0;
      const owners = await listOwnerEmails(db, endpoint.orgId);
      for (const to of owners) {
        try {
          await deps.mailer.send(webhookDisabledNotice({ to, orgId: endpoint.orgId, endpoint, disabledAt: endpoint.updatedAt }));
        } catch (err) {
          if (err instanceof MailRejectedError) throw ApplicationFailure.nonRetryable(err.message, 'MAIL_REJECTED');
          throw err;
        }
      }
      return owners.length;
    },

    async purgeOldEvents(): Promise<number> {
      const purged = await purgeEventsOlderThan(db, EVENT_RETENTION_DAYS);
      const givenUp = await purgeDeliveriesGivenUp(db);
      logger.info({ purged, givenUp }, 'purged events older than 30 days and the waiting deliveries given up');
      return purged;
    },
  };
}

export type WebhookActivities = ReturnType<typeof createWebhookActivities>;
