import type { Db } from '../../db/pool.js';
import { claimOperationForWorkflow } from './operations.repository.js';
import { modeOf } from '../../db/modeScope.js';

/** What every operation's workflow does first, whatever it is for (domains, DNSSEC). */
export function createOperationActivities({ db }: { db: Db }) {
  return {
    /** False when the api abandoned the operation before this workflow could take it. */
    async markOperationRunning(input: { operationId: string; livemode: boolean }): Promise<boolean> {
      return claimOperationForWorkflow(db, modeOf(input.livemode), input.operationId);
    },
  };
}

export type OperationActivities = ReturnType<typeof createOperationActivities>;
