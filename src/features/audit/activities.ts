import type { Db } from '../../db/pool.js';
import type { Logger } from '../../logger.js';
import { purgeAuditEventsOlderThan } from './auditLog.repository.js';

/** Audit entries are kept one year (docs/api-guide.md, Audit log). */
export const AUDIT_RETENTION_DAYS = 365;

export function createAuditActivities(deps: { db: Db; logger: Logger }) {
  return {
    async purgeOldAuditEvents(): Promise<number> {
      const purged = await purgeAuditEventsOlderThan(deps.db, AUDIT_RETENTION_DAYS);
      deps.logger.info({ purged }, 'purged audit entries older than a year');
      return purged;
    },
  };
}
