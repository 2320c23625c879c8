import type { Db } from '../../db/pool.js';
import type { Logger } from '../../logger.js';
import { purgeExpiredIdempotencyKeys } from '../../http/idempotencyKeys.js';

/** The scheduled clean-ups that belong to no other feature (docs/operations.md). */
export function createHousekeepingActivities(deps: { db: Db; logger: Logger }) {
  return {
    async purgeExpiredIdempotencyKeys(): Promise<number> {
      const purged = await purgeExpiredIdempotencyKeys(deps.db);
      deps.logger.info({ purged }, 'purged expired idempotency keys');
      return purged;
    },
  };
}
