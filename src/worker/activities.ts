import type { Config } from '../config.js';
import type { Redis } from 'ioredis';
import type { Db } from '../db/pool.js';
import type { Logger } from '../logger.js';
import type { Registrars } from '../registrar/registrars.js';
import type { Temporal } from '../temporal/client.js';
import type { PayloadKeyring } from '../temporal/payloadKeys.js';
import type { ApiKeyVerifier } from '../auth/apiKeyVerifier.js';
import { createMailer, type Mailer } from '../mail/mailer.js';
import type { Metrics } from '../metrics/registry.js';
import { createPaidOperationActivities } from '../flows/paidOperation/activities.js';
import { createOperationActivities } from '../features/domains/operationActivities.js';
import { createLeakActivities } from '../features/leaks/activities.js';
import { createDnsActivities } from '../features/dns/activities.js';
import { createDnssecActivities } from '../features/dns/dnssecActivities.js';
import { createStrandedOperationActivities } from '../features/strandedOperations/activities.js';
import { createRegistrationActivities } from '../flows/registerDomain/registrationActivities.js';
import { createContactSyncActivities } from '../features/domains/contactSyncActivities.js';
import { createAutoRenewActivities } from '../flows/autoRenew/activities.js';
import { createRegistrarDriftActivities } from '../features/registrarDrift/activities.js';
import { createWebhookActivities } from '../features/webhooks/activities.js';
import type { Resolver } from '../features/webhooks/sender.js';
import { createLifecycleActivities } from '../features/lifecycle/activities.js';
import { createHousekeepingActivities } from '../features/housekeeping/activities.js';
import { createAuditActivities } from '../features/audit/activities.js';

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
  /** Opens the sealed workflow input of an operation the stranded-operations run restarts. */
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
    ...createOperationActivities(deps),
    ...createPaidOperationActivities(deps),
    ...createLeakActivities({ ...deps, mailer }),
    ...createLifecycleActivities({ ...deps, mailer }),
    ...createAutoRenewActivities(deps),
    ...createDnsActivities(deps),
    ...createDnssecActivities(deps),
    ...createStrandedOperationActivities(deps),
    ...createRegistrationActivities(deps),
    ...createContactSyncActivities(deps),
    ...createRegistrarDriftActivities(deps),
    ...createWebhookActivities({ ...deps, mailer }),
    ...createHousekeepingActivities(deps),
    ...createAuditActivities(deps),
  };
}

export type Activities = ReturnType<typeof createActivities>;
