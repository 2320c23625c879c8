import { ApplicationFailure } from '@temporalio/activity';
import type { Db } from '../../db/pool.js';
import { insertAuditEvent } from '../../audit/auditEvents.js';
import { updateDomainSettings, type Domain, endOperation, activateDomain } from '../../features/domains/index.js';
import { watchDomain } from '../../features/lifecycle/index.js';
import { capture } from '../../features/billing/index.js';
import { NotFoundError } from '../../errors.js';
import type { Registrars } from '../../registrar/registrars.js';
import { callRegistrar, type AccountProblemReport } from '../../temporal/registrarFailures.js';
import type { Temporal } from '../../temporal/client.js';
import type { Config } from '../../config.js';
import { modeOf } from '../../db/modeScope.js';

export interface RegistrationActivityDeps extends AccountProblemReport {
  db: Db;
  registrars: Registrars;
  temporal: Pick<Temporal, 'client'>;
  config: Pick<Config, 'temporal'>;
}

/** The operation error of a registration done for fewer years than paid for. */
export const PARTIALLY_REGISTERED = 'PARTIALLY_REGISTERED';

/** The steps a registration (and, for WHOIS privacy, a transfer) needs beside the paid call itself. */
export function createRegistrationActivities({ db, logger, metrics, registrars, temporal, config }: RegistrationActivityDeps) {
  const report = { logger, metrics };
  return {
    /** Delegates the domain to the name servers asked for at registration (DNSimple: PUT …/delegation). */
    async registrarSetNameservers(input: { livemode: boolean; name: string; nameservers: string[] }): Promise<string[]> {
      return callRegistrar(report, async () => (await (await registrars.forMode(input.livemode)).setNameservers(input)).nameservers);
    },

    /**
     * WHOIS privacy asked for at registration or transfer, once the domain is ours: set at the
     * registrar (DNSimple: PUT …/whois_privacy), then stored as it confirmed. Both are safe to repeat.
     */
    async registrarApplyWhoisPrivacy(input: { livemode: boolean; domainId: string; name: string; enabled: boolean }): Promise<void> {
      const confirmed = await callRegistrar(report, async () => (await registrars.forMode(input.livemode)).setWhoisPrivacy({ name: input.name, enabled: input.enabled }));
      if (confirmed.enabled !== input.enabled) {
        throw ApplicationFailure.nonRetryable(`The registrar left WHOIS privacy ${confirmed.enabled ? 'on' : 'off'} for ${input.name}`, 'REGISTRAR_REJECTED');
      }
      await updateDomainSettings(db, modeOf(input.livemode), { id: input.domainId, expectedVersion: undefined, changes: { whois_privacy: confirmed.enabled } });
    },

    /**
     * Registered for `yearsDone` of `years`, the renewal for the rest refused: the registration is
     * real and kept, so its share of the reservation is captured and the rest released; the domain is
     * active until the expiry the registrar gave; the operation ends `failed` with PARTIALLY_REGISTERED,
     * saying what was done and charged, and an audit event and an error log tell the operator.
     */
    async settleRegistrationInPart(input: {
      operationId: string;
      livemode: boolean;
      orgId: string;
      domainId: string;
      name: string;
      years: number;
      yearsDone: number;
      expiresAt: string;
      /** Null when the registration was recognised from the domain itself; the stored reference is kept. */
      registrarReference: string | null;
      failure: { code: string; detail: string };
    }): Promise<void> {
      const mode = modeOf(input.livemode);
      // The reservation is the one-year price times the years (src/flows/registerDomain/registerDomain.ts): the years done are its share.
      const reservation = await capture({ db, operationId: input.operationId, share: { done: input.yearsDone, of: input.years } }).catch((err: unknown) => {
        throw err instanceof NotFoundError ? ApplicationFailure.nonRetryable(`Operation ${input.operationId} has no reservation`, 'INTERNAL') : err;
      });
      const charged = reservation.captured;
      let domain: Domain | undefined;
      const detail =
        `Registered for ${input.yearsDone} of ${input.years} years (charged ${charged} of ${reservation.amount}); ` +
        `renewing the other ${input.years - input.yearsDone} failed: ${input.failure.detail}`;
      await endOperation({
        db,
        mode,
        operationId: input.operationId,
        ending: {
          status: 'failed',
          result: { domain: input.name, status: 'active', years: input.yearsDone, expires_at: input.expiresAt },
          error: { code: PARTIALLY_REGISTERED, detail },
        },
        alongside: async (tx) => {
          domain = await activateDomain({ db: tx, mode, domainId: input.domainId, expiresAt: input.expiresAt, registrarReference: input.registrarReference });
        },
      });
      await insertAuditEvent(db, {
        id: `evt_partial_${input.operationId}`,
        action: 'domain.partially_registered',
        actorUserId: null,
        actorKeyId: null,
        orgId: input.orgId,
        targetType: 'domain',
        targetId: input.domainId,
        livemode: input.livemode,
        data: { livemode: input.livemode, operation_id: input.operationId, charged, released: reservation.amount - charged, cause: input.failure },
        requestId: null,
      });
      logger.error({ operationId: input.operationId, domain: input.name, failure: input.failure }, 'registration renewed for fewer years than paid');
      if (domain) await watchDomain({ temporal, config, domain, reason: `operation ${input.operationId} registered in part` });
    },
  };
}

export type RegistrationActivities = ReturnType<typeof createRegistrationActivities>;
