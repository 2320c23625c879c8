import type { PlatformDeps } from '../../platformDeps.js';
import { purgeExpiredIdempotencyKeys } from '../../http/idempotencyKeys.js';

export type HousekeepingActivityDeps = Pick<PlatformDeps, 'db' | 'logger'>;

/** The scheduled clean-ups that belong to no other feature (docs/operations.md). */
export function createHousekeepingActivities(deps: HousekeepingActivityDeps) {
  return {
    async purgeExpiredIdempotencyKeys(): Promise<number> {
      const purged = await purgeExpiredIdempotencyKeys(deps.db);
      deps.logger.info({ purged }, 'purged expired idempotency keys');
      return purged;
    },
  };
}

export type HousekeepingActivities = ReturnType<typeof createHousekeepingActivities>;
