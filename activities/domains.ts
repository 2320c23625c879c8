import { ApplicationFailure } from '@temporalio/activity';
import type { Db } from '../src/db/pool.js';
import { ApiError } from '../src/errors.js';
import { findContact } from '../src/db/repositories/contacts.js';
import { contactDetails, ensureRegistrarContact } from '../src/services/contacts/registrarContact.js';
import { updateDomain } from '../src/db/repositories/domains.js';
import { claimOperationForWorkflow, updateOperation } from '../src/db/repositories/operations.js';
import { capture, release, RESERVATION_STATE_CONFLICT } from '../src/services/billing/ledger.js';
import type { Logger } from '../src/logger.js';
import { failUncapturable } from './captureConflict.js';
import { RegistrarUnavailableError } from '../src/registrar/errors.js';
import type { Registrar, RegistrarTerms, TransferStatus } from '../src/registrar/port.js';
import type { Registrars } from '../src/services/domains/registrars.js';
import type { RegisterDomainInput } from '../workflows/registerDomain.js';
import type { TransferDomainInput } from '../workflows/transferDomain.js';

/** Where a registration stands after a registrar call. */
export type RegistrationStep =
  | { state: 'registered'; expiresAt: string; registrarReference: string }
  | { state: 'pending'; registrarReference: string };

export interface DomainActivityDeps {
  db: Db;
  registrars: Registrars;
  logger: Logger;
}

/**
 * Registrar errors as Temporal sees them: transient ones retry (honouring Retry-After), refusals
 * do not. The failure type is our stable error code, so the workflow can record it as is.
 */
function asActivityFailure(err: unknown): unknown {
  if (err instanceof RegistrarUnavailableError) {
    return ApplicationFailure.create({
      type: err.code,
      message: typeof err.detail === 'string' ? err.detail : err.message,
      nonRetryable: !err.transient,
      ...(err.retryAfterSeconds !== undefined ? { nextRetryDelay: `${err.retryAfterSeconds}s` } : {}),
    });
  }
  if (err instanceof ApiError) {
    return ApplicationFailure.nonRetryable(typeof err.detail === 'string' ? err.detail : err.message, err.code);
  }
  return err;
}

export async function callRegistrar<T>(work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (err) {
    throw asActivityFailure(err);
  }
}

/** The registrant's id at the registrar: stored, created once, or updated when the contact changed. */
async function registrantRegistrarId(db: Db, registrar: Registrar, livemode: boolean, contactId: string): Promise<string> {
  const synced = await ensureRegistrarContact({ db, registrar, mode: { livemode }, contactId });
  if (synced.status === 'current' || synced.status === 'synced') return synced.registrarContactId;
  throw ApplicationFailure.nonRetryable('The registrant contact no longer exists', 'REGISTRAR_REJECTED');
}

export function createDomainActivities({ db, registrars, logger }: DomainActivityDeps) {
  return {
    /** False when the api abandoned the operation before this workflow could take it. */
    async markOperationRunning(input: { operationId: string; livemode: boolean }): Promise<boolean> {
      return claimOperationForWorkflow(db, { livemode: input.livemode }, input.operationId);
    },

    /**
     * Submits the registration for the term the registrar takes in one go (`termYears`; the workflow
     * renews the rest). The registrant's registrar id is stored on our contact, so retries and later
     * registrations reuse it.
     */
    async registrarRegister(
      input: Pick<RegisterDomainInput, 'livemode' | 'orgId' | 'name' | 'years' | 'registrantContactId' | 'nameservers' | 'autoRenew' | 'premiumPriceCents'>,
    ): Promise<RegistrationStep & { termYears: number; nameserversApplied: boolean }> {
      const mode = { livemode: input.livemode };
      const contact = await findContact(db, mode, { orgId: input.orgId, id: input.registrantContactId });
      if (!contact) throw ApplicationFailure.nonRetryable('The registrant contact no longer exists', 'REGISTRAR_REJECTED');
      return callRegistrar(async () => {
        const registrar: Registrar & RegistrarTerms = await registrars.forMode(input.livemode);
        const termYears = Math.min(input.years, registrar.registrationTermYears ?? input.years);
        const result = await registrar.register({
          name: input.name,
          years: termYears,
          registrant: contactDetails(contact),
          registrantRegistrarId: await registrantRegistrarId(db, registrar, input.livemode, contact.id),
          ...(input.nameservers.length ? { nameservers: input.nameservers } : {}),
          autoRenew: input.autoRenew,
          ...(input.premiumPriceCents !== null ? { premiumPrice: { amount: input.premiumPriceCents, currency: 'USD' as const } } : {}),
        });
        const extra = { termYears, nameserversApplied: result.nameserversApplied };
        return result.state === 'registered'
          ? { state: 'registered', expiresAt: result.expiresAt, registrarReference: result.registrarReference, ...extra }
          : { state: 'pending', registrarReference: result.registrarReference, ...extra };
      });
    },

    async registrarRegistrationStatus(input: {
      livemode: boolean;
      name: string;
      registrarReference: string;
    }): Promise<RegistrationStep> {
      return callRegistrar(async () => {
        const registrar = await registrars.forMode(input.livemode);
        const status = await registrar.registrationStatus({ name: input.name, registrarReference: input.registrarReference });
        if (status.state === 'failed') {
          throw ApplicationFailure.nonRetryable(status.detail ?? 'The registrar failed the registration', 'REGISTRAR_REJECTED');
        }
        return status.state === 'registered'
          ? { state: 'registered', expiresAt: status.expiresAt, registrarReference: input.registrarReference }
          : { state: 'pending', registrarReference: input.registrarReference };
      });
    },

    async registrarTransfer(
      input: Pick<TransferDomainInput, 'livemode' | 'orgId' | 'name' | 'authCode' | 'registrantContactId'>,
    ): Promise<{ registrarReference: string }> {
      const contact = await findContact(db, { livemode: input.livemode }, { orgId: input.orgId, id: input.registrantContactId });
      if (!contact) throw ApplicationFailure.nonRetryable('The registrant contact no longer exists', 'REGISTRAR_REJECTED');
      return callRegistrar(async () => {
        const registrar = await registrars.forMode(input.livemode);
        const result = await registrar.transfer({
          name: input.name,
          authCode: input.authCode,
          registrant: contactDetails(contact),
          registrantRegistrarId: await registrantRegistrarId(db, registrar, input.livemode, contact.id),
        });
        return { registrarReference: result.registrarReference };
      });
    },

    async registrarTransferStatus(input: { livemode: boolean; name: string; registrarReference: string }): Promise<TransferStatus> {
      return callRegistrar(async () => (await registrars.forMode(input.livemode)).transferStatus(input));
    },

    async registrarCancelTransfer(input: { livemode: boolean; name: string; registrarReference: string }): Promise<TransferStatus> {
      return callRegistrar(async () => (await registrars.forMode(input.livemode)).cancelTransfer(input));
    },

    async registrarRenew(input: { livemode: boolean; name: string; years: number; currentExpiresAt: string | null }): Promise<RegistrationStep> {
      return callRegistrar(async () => {
        const result = await (await registrars.forMode(input.livemode)).renew({
          name: input.name,
          years: input.years,
          ...(input.currentExpiresAt ? { currentExpiresAt: input.currentExpiresAt } : {}),
        });
        return result.state === 'renewed'
          ? { state: 'registered', expiresAt: result.expiresAt, registrarReference: result.registrarReference }
          : { state: 'pending', registrarReference: result.registrarReference };
      });
    },

    async registrarRenewalStatus(input: { livemode: boolean; name: string; registrarReference: string }): Promise<RegistrationStep> {
      return callRegistrar(async () => {
        const status = await (await registrars.forMode(input.livemode)).renewalStatus(input);
        if (status.state === 'failed') throw ApplicationFailure.nonRetryable(status.detail ?? 'The registrar failed the renewal', 'REGISTRAR_REJECTED');
        return status.state === 'renewed'
          ? { state: 'registered', expiresAt: status.expiresAt, registrarReference: input.registrarReference }
          : { state: 'pending', registrarReference: input.registrarReference };
      });
    },

    /**
     * Success: capture first (idempotent per operation), then the rows, so a retry after a crash
     * lands in the same place and charges once. A reservation that can no longer be captured fails
     * the operation at once (see failUncapturable): no retry can make it capturable.
     */
    async completeOperation(input: {
      operationId: string;
      livemode: boolean;
      domainId: string;
      /** Null when the registrar did not say (the domain keeps no expiry until it is read back). */
      expiresAt: string | null;
      registrarReference: string;
      result: Record<string, unknown>;
    }): Promise<void> {
      const mode = { livemode: input.livemode };
      try {
        await capture({ db, operationId: input.operationId });
      } catch (err) {
        if (err instanceof ApiError && (err.code === RESERVATION_STATE_CONFLICT || err.status === 404)) {
          throw await failUncapturable({ db, logger }, { ...input, cause: err });
        }
        throw err;
      }
      await updateDomain(db, mode, input.domainId, {
        status: 'active',
        ...(input.expiresAt ? { expires_at: new Date(input.expiresAt) } : {}),
        registrar_reference: input.registrarReference,
      });
      await updateOperation(db, mode, input.operationId, { status: 'succeeded', result: { ...input.result, expires_at: input.expiresAt } });
    },

    /** Failure or cancellation: release the reservation; the domain becomes `domainStatus` when given. */
    async failOperation(input: {
      operationId: string;
      livemode: boolean;
      domainId: string;
      domainStatus: 'failed' | null;
      status: 'failed' | 'cancelled';
      code: string;
      detail: string;
    }): Promise<void> {
      const mode = { livemode: input.livemode };
      await release({ db, operationId: input.operationId });
      if (input.domainStatus) await updateDomain(db, mode, input.domainId, { status: input.domainStatus });
      await updateOperation(db, mode, input.operationId, { status: input.status, error: { code: input.code, detail: input.detail } });
    },
  };
}
