import type { PlatformDeps } from '../../platformDeps.js';
import { purgeAuditEventsOlderThan } from './auditLog.repository.js';

/** Audit entries are kept one year (docs/api-guide.md, Audit log). */
export const AUDIT_RETENTION_DAYS = 365;

export type AuditActivityDeps = Pick<PlatformDeps, 'db' | 'logger'>;

export function createAuditActivities(deps: AuditActivityDeps) {
  return {
    async purgeOldAuditEvents(): Promise<number> {
      const purged = await purgeAuditEventsOlderThan(deps.db, AUDIT_RETENTION_DAYS);
      deps.logger.info({ purged }, 'purged audit entries older than a year');
      return purged;
    },
  };
}

export type AuditActivities = ReturnType<typeof createAuditActivities>;
