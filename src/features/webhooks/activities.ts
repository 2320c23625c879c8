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
import { dispatchEvents, wakeOverdueQueues } from './dispatch.js';
import { purgeDeliveriesGivenUp } from './deliveriesWaiting.repository.js';
import { createKeyedPacer } from '../../rateLimit/upstreamPacer.js';
import type { Temporal } from '../../temporal/client.js';
import type { PayloadKeyring } from '../../temporal/payloadKeys.js';
import { systemResolver, type Resolver } from './sender.js';
import { DRAIN_RUN_MS, type DispatchEventsInput, type DrainEndpointResult, type WebhookDeliveryTiming } from './webhooks.contract.js';
import { drainEndpointQueue } from './drain.js';
import { modeOf } from '../../db/modeScope.js';

/** Events are kept 30 days (docs/api-guide.md, Webhooks and events); their delivery attempts go with them. */
export const EVENT_RETENTION_DAYS = 30;

/** How often the dispatcher wakes endpoint queues whose deliveries have been due this long (a lost wake). */
const QUEUE_SWEEP_MS = 60_000;

/** Deliveries read from an endpoint queue's head at a time. */
const DRAIN_BATCH = 100;

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
        const props = {
          db,
          client: deps.temporal.client,
          taskQueue: deps.config.temporal.taskQueue,
          timing: input.timing,
          batch: input.batch,
          onWakeFailed: (err: unknown) => logger.warn({ err }, 'an endpoint queue was not woken; the dispatcher wakes it when its deliveries are overdue'),
        };
        let sweptAt = 0;
        while (Date.now() < deadline && !context.cancellationSignal.aborted) {
          wake.pending = false;
          let handled: number;
          do {
            handled = await dispatchEvents(props);
            dispatched += handled;
            context.heartbeat();
          } while (handled === input.batch);
          if (Date.now() - sweptAt >= QUEUE_SWEEP_MS) {
            sweptAt = Date.now();
            const woken = await wakeOverdueQueues({ ...props, overdueMs: QUEUE_SWEEP_MS });
            if (woken > 0) logger.info({ woken }, 'woke endpoint queues with deliveries overdue');
          }
          await nextWake(Math.min(input.pollMs, Math.max(0, deadline - Date.now())), wake, context.cancellationSignal);
        }
      } finally {
        await listener.end().catch(() => undefined);
      }
      return dispatched;
    },

    /**
     * Sends an endpoint's queued deliveries from its head, oldest first, for up to DRAIN_RUN_MS
     * (src/features/webhooks/drain.ts); heartbeats after each send. HTTP failures are results, not errors.
     */
    async drainEndpointQueue(input: { endpointId: string; livemode: boolean; timing: WebhookDeliveryTiming }): Promise<DrainEndpointResult> {
      const context = Context.current();
      const mode = modeLabel(input.livemode);
      const result = await drainEndpointQueue({
        ...input,
        db,
        payloadKeys: deps.payloadKeys,
        resolver,
        destinations: deps.config.webhooks,
        pacer,
        batch: DRAIN_BATCH,
        runForMs: DRAIN_RUN_MS,
        onProgress: () => context.heartbeat(),
        onAttempt: (outcome, seconds) => deps.metrics.webhookAttempts.observe({ outcome, mode }, seconds),
      });
      if (result.disabledNow) deps.metrics.webhookEndpointsDisabled.inc({ mode });
      return result;
    },

    /** One attempt of one delivery of a deliverWebhookWorkflow run (src/features/webhooks/deliver.ts); HTTP failures are results, not errors. */
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
