import type { Config } from '../src/config.js';
import type { Redis } from 'ioredis';
import type { Db } from '../src/db/pool.js';
import type { Logger } from '../src/logger.js';
import type { Registrars } from '../src/registrar/registrars.js';
import type { Temporal } from '../src/temporal/client.js';
import type { PayloadKeyring } from '../src/temporal/payloadKeys.js';
import type { ApiKeyVerifier } from '../src/auth/apiKeyVerifier.js';
import { createMailer, type Mailer } from '../src/mail/mailer.js';
import type { Metrics } from '../src/metrics/registry.js';
import { createPaidOperationActivities } from '../src/flows/paidOperation/activities.js';
import { createOperationActivities } from '../src/features/domains/index.js';
import { createLeakActivities } from '../src/features/leaks/index.js';
import { createDnsActivities, createDnssecActivities } from '../src/features/dns/index.js';
import { createStrandedOperationActivities } from '../src/features/strandedOperations/index.js';
import { createRegistrationActivities } from '../src/flows/registerDomain/registrationActivities.js';
import { createAutoRenewActivities } from '../src/flows/autoRenew/activities.js';
import { createContactActivities } from '../src/features/contacts/index.js';
import { createRegistrarDriftActivities } from '../src/features/registrarDrift/index.js';
import { createWebhookActivities, type Resolver } from '../src/features/webhooks/index.js';
import { createLifecycleActivities } from '../src/features/lifecycle/index.js';
import { createHousekeepingActivities } from '../src/features/housekeeping/index.js';
import { createAuditActivities } from '../src/features/audit/index.js';

/**
 * The worker's activities, every feature's composed in one object: the one list the worker
 * registers (src/worker/worker.ts), beside the workflows it loads (workflows/index.ts). Each feature
 * keeps its own factory, its own activities' type (what its workflows proxy) and the dependencies it
 * declares, and ActivityDeps must satisfy them all (the compiler checks it in createActivities).
 */

/** What activities may touch: the union of what each feature's factory declares. */
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
 * `activities-dependency-injection` pattern). Workflows proxy their own feature's activities' type.
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
    ...createContactActivities(deps),
    ...createRegistrarDriftActivities(deps),
    ...createWebhookActivities({ ...deps, mailer }),
    ...createHousekeepingActivities(deps),
    ...createAuditActivities(deps),
  };
}

export type Activities = ReturnType<typeof createActivities>;

type Factories = [
  typeof createOperationActivities,
  typeof createPaidOperationActivities,
  typeof createLeakActivities,
  typeof createLifecycleActivities,
  typeof createAutoRenewActivities,
  typeof createDnsActivities,
  typeof createDnssecActivities,
  typeof createStrandedOperationActivities,
  typeof createRegistrationActivities,
  typeof createContactActivities,
  typeof createRegistrarDriftActivities,
  typeof createWebhookActivities,
  typeof createHousekeepingActivities,
  typeof createAuditActivities,
];
type NamesOf<T> = T extends (...args: never[]) => infer A ? keyof A : never;
type NamedTwice<T extends unknown[]> = T extends [infer Head, ...infer Rest] ? (NamesOf<Head> & NamesOf<Rest[number]>) | NamedTwice<Rest> : never;

// Compile-time only: workflows proxy their own feature's activities by name, and the spread above
// would let a later feature's activity of the same name answer for an earlier one's. A name two
// factories share is the type here, and `true` does not fit it.
export const noActivityNamedTwice: [NamedTwice<Factories>] extends [never] ? true : NamedTwice<Factories> = true;

