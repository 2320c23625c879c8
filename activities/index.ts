import type { Config } from '../src/config.js';
import type { Redis } from 'ioredis';
import type { Db } from '../src/db/pool.js';
import type { Logger } from '../src/logger.js';
import { purgeExpiredIdempotencyKeys } from '../src/db/repositories/idempotencyKeys.js';
import type { Registrars } from '../src/registrar/registrars.js';
import type { Temporal } from '../src/temporal/client.js';
import type { PayloadKeyring } from '../src/temporal/payloadKeys.js';
import type { ApiKeyVerifier } from '../src/auth/apiKeyVerifier.js';
import { createMailer, type Mailer } from '../src/mail/mailer.js';
import type { Metrics } from '../src/metrics/registry.js';
import { createDomainActivities } from './domains.js';
import { createLeakActivities } from './leaks.js';
import { createDnsActivities } from './dns.js';
import { createReconcilerActivities } from './reconciler.js';
import { createRegistrationActivities } from './registrations.js';
import { createReconcileActivities } from './reconcile.js';
import { createWebhookActivities } from './webhooks.js';
import type { Resolver } from '../src/webhooks/sender.js';
import { createLifecycleActivities } from './lifecycle.js';

/** What activities may touch. Narrow on purpose: each activity takes only what it uses. */
export interface ActivityDeps {
  config: Config;
  db: Db;
  /** Shared pacing across processes (webhook deliveries per destination host). */
  redis: Redis;
  logger: Logger;
  /** Counters for operators; labels from closed lists only (src/metrics/registry.ts). */
  metrics: Metrics;
  registrars: Registrars;
  /** Leak scans start revoke workflows. */
  temporal: Temporal;
  /** Revoking a key invalidates every api process's cache. */
  apiKeys: Pick<ApiKeyVerifier, 'invalidate'>;
  keyHashSecret: string;
  /** Opens the sealed workflow input of an operation the reconciler restarts. */
  payloadKeys: PayloadKeyring;
  /** Owner e-mail; built from the config when absent. */
  mailer?: Mailer;
  /** How webhook endpoint names are resolved at send time; the system resolver when absent (tests inject one). */
  webhookResolver?: Resolver;
}

/**
 * Builds the activity implementations around their dependencies (the samples'
 * `activities-dependency-injection` pattern). Workflows see only `typeof` this object's type.
 */
export function createActivities(deps: ActivityDeps) {
  const mailer = deps.mailer ?? createMailer(deps.config, deps.logger);
  return {
    ...createDomainActivities(deps),
    ...createLeakActivities({ ...deps, mailer }),
    ...createLifecycleActivities({ ...deps, mailer }),
    ...createDnsActivities(deps),
    ...createReconcilerActivities(deps),
    ...createRegistrationActivities(deps),
    ...createReconcileActivities(deps),
    ...createWebhookActivities({ ...deps, mailer }),
    async purgeExpiredIdempotencyKeys(): Promise<number> {
      const purged = await purgeExpiredIdempotencyKeys(deps.db);
      deps.logger.info({ purged }, 'purged expired idempotency keys');
      return purged;
    },
  };
}

export type Activities = ReturnType<typeof createActivities>;
