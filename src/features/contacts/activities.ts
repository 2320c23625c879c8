import type { Db } from '../../db/pool.js';
import { insertAuditEvent } from '../../audit/auditEvents.js';
import { modeOf } from '../../db/modeScope.js';
import type { Registrars } from '../../registrar/registrars.js';
import { callRegistrar, type AccountProblemReport } from '../../temporal/registrarFailures.js';
import { ensureRegistrarContact } from './registrarContact.js';

export interface ContactActivityDeps extends AccountProblemReport {
  db: Db;
  registrars: Pick<Registrars, 'forMode'>;
}

/** Contact changes passed on upstream (syncRegistrarContactWorkflow). */
export function createContactActivities({ db, logger, metrics, registrars }: ContactActivityDeps) {
  const report = { logger, metrics };
  return {
    /**
     * Passes a contact change on to the registrar, when the registrar holds the contact (it is
     * created there only when a registration or transfer first uses it). An older change arriving
     * after a newer one finds the contact current and does nothing.
     */
    async syncContactToRegistrar(input: { livemode: boolean; contactId: string }): Promise<{ status: string; version?: number }> {
      return callRegistrar(report, async () => {
        const registrar = await registrars.forMode(input.livemode);
        const synced = await ensureRegistrarContact({ db, registrar, mode: modeOf(input.livemode), contactId: input.contactId, onlyIfKnown: true });
        return 'version' in synced ? { status: synced.status, version: synced.version } : { status: synced.status };
      });
    },

    /** A contact change the registrar refused for good: the operator hears of it; our copy keeps the change. */
    async reportContactSyncFailure(input: { livemode: boolean; orgId: string; contactId: string; version: number; failure: { code: string; detail: string } }): Promise<void> {
      await insertAuditEvent(db, {
        id: `evt_contact_sync_${input.contactId}_v${input.version}`,
        action: 'contact.registrar_sync_failed',
        actorUserId: null,
        actorKeyId: null,
        orgId: input.orgId,
        targetType: 'contact',
        targetId: input.contactId,
        livemode: input.livemode,
        data: { livemode: input.livemode, version: input.version, failure: input.failure },
        requestId: null,
      });
      logger.error({ contactId: input.contactId, version: input.version, failure: input.failure }, 'the registrar refused a contact change');
    },
  };
}

export type ContactActivities = ReturnType<typeof createContactActivities>;
