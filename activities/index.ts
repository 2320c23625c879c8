import type { Config } from '../src/config.js';
import type { Db } from '../src/db/pool.js';
import type { Logger } from '../src/logger.js';
import { purgeExpiredIdempotencyKeys } from '../src/db/repositories/idempotencyKeys.js';
import type { Registrars } from '../src/services/domains/registrars.js';
import { createDomainActivities } from './domains.js';
import { createDnsActivities } from './dns.js';

/** What activities may touch. Narrow on purpose: each activity takes only what it uses. */
export interface ActivityDeps {
  config: Config;
  db: Db;
  logger: Logger;
  registrars: Registrars;
}

/**
 * Builds the activity implementations around their dependencies (the samples'
 * `activities-dependency-injection` pattern). Workflows see only `typeof` this object's type.
 */
export function createActivities(deps: ActivityDeps) {
  return {
    ...createDomainActivities(deps),
    ...createDnsActivities(deps),
    async purgeExpiredIdempotencyKeys(): Promise<number> {
      const purged = await purgeExpiredIdempotencyKeys(deps.db);
      deps.logger.info({ purged }, 'purged expired idempotency keys');
      return purged;
    },
  };
}

export type Activities = ReturnType<typeof createActivities>;
