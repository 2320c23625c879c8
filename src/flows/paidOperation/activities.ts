import { ApplicationFailure, Context } from '@temporalio/activity';
import type { Db } from '../../db/pool.js';
import { ApiError } from '../../errors.js';
import { findContact, type Contact, contactDetails, ensureRegistrarContact } from '../../features/contacts/index.js';
import { endOperation, findDomainById, type Domain, activateDomain, changeDomainStatus, presentDomain, type RegisterDomainInput, type RegistrarStep, type RenewDomainInput, type TransferDomainInput } from '../../features/domains/index.js';
import { watchDomain } from '../../features/lifecycle/index.js';
import { emitEvent } from '../../features/webhooks/index.js';
import type { Temporal } from '../../temporal/client.js';
import type { Config } from '../../config.js';
import { capture, release, RESERVATION_STATE_CONFLICT } from '../../features/billing/index.js';
import { failUncapturable } from './captureConflict.js';
import { asRegistrarFailure, type AccountProblemReport } from '../../temporal/registrarFailures.js';
import type { Money, Registrar, RegistrarTerms, TransferStatus } from '../../registrar/port.js';
import type { Registrars } from '../../registrar/registrars.js';
import { modeOf } from '../../db/modeScope.js';

export interface PaidOperationActivityDeps extends AccountProblemReport {
  db: Db;
  registrars: Registrars;
  /** A domain that becomes ours, or whose renewal ends, tells its lifecycle workflow. */
  temporal: Pick<Temporal, 'client'>;
  config: Pick<Config, 'temporal'>;
}

/** The registrant's id at the registrar: stored, created once, or updated when the contact changed. */
async function registrantRegistrarId(db: Db, registrar: Registrar, livemode: boolean, contactId: string): Promise<string> {
  const synced = await ensureRegistrarContact({ db, registrar, mode: modeOf(livemode), contactId });
  if (synced.status === 'current' || synced.status === 'synced') return synced.registrarContactId;
  throw ApplicationFailure.nonRetryable('The registrant contact no longer exists', 'REGISTRAR_REJECTED');
}

function usd(cents: number | null | undefined): { premiumPrice: Money } | Record<string, never> {
  return cents === null || cents === undefined ? {} : { premiumPrice: { amount: cents, currency: 'USD' } };
}

/** How often a paid attempt tells Temporal it is alive, so a dead worker's attempt is noticed in seconds. */
const HEARTBEAT_EVERY_MS = 2_000;

/** The registrar's words for finished work, in its answers to register, renew and transfer and their status reads. */
const DONE_STATES: ReadonlySet<string> = new Set(['registered', 'renewed', 'transferred']);

/**
 * The one mapping of a registrar answer (submission or status read) to a RegistrarStep: finished
 * work with its expiry is done; anything else, or finished work without an expiry, is pending.
 */
function stepOf(answer: { state: string; expiresAt?: string }, reference: string | null): RegistrarStep {
  return DONE_STATES.has(answer.state) && answer.expiresAt ? { state: 'done', expiresAt: answer.expiresAt, reference } : { state: 'pending', reference };
}

export function createPaidOperationActivities({ db, registrars, logger, metrics, temporal, config }: PaidOperationActivityDeps) {
  async function call<T>(during: 'submit' | 'poll', livemode: boolean, work: (registrar: Registrar) => Promise<T>): Promise<T> {
    try {
      return await work(await registrars.forMode(livemode));
    } catch (err) {
      throw asRegistrarFailure(err, { logger, metrics }, during);
    }
  }

  /**
   * One paid attempt. A retry of the activity (its worker died, or it timed out) may follow a POST
   * that took effect, so it is answered as an unknown outcome without calling anyone: the workflow
   * waits its settle delay and submits again, and that submission reads the upstream state first.
   */
  async function paid(livemode: boolean, work: (registrar: Registrar) => Promise<RegistrarStep>): Promise<RegistrarStep> {
    const context = Context.current();
    if (context.info.attempt > 1) return { state: 'pending', reference: null };
    const beat = setInterval(() => context.heartbeat(), HEARTBEAT_EVERY_MS);
    try {
      return await call('submit', livemode, work);
    } finally {
      clearInterval(beat);
    }
  }

  /** Once a domain is ours upstream, the registrar's own auto-renew goes off before we capture. */
  async function doneAndOurs(registrar: Registrar, name: string, result: RegistrarStep): Promise<RegistrarStep> {
    if (result.state === 'done') await registrar.disableAutoRenew(name);
    return result;
  }

  async function registrant(input: { livemode: boolean; orgId: string; registrantContactId: string }): Promise<Contact> {
    const contact = await findContact(db, modeOf(input.livemode), { orgId: input.orgId, id: input.registrantContactId });
    if (!contact) throw ApplicationFailure.nonRetryable('The registrant contact no longer exists', 'REGISTRAR_REJECTED');
    return contact;
  }

  return {
    /**
     * Submits the registration for the term the registrar takes in one go (`termYears`; the workflow
     * renews the rest). The registrant's registrar id is stored on our contact, so retries and later
     * registrations reuse it.
     */
    async registrarRegister(
      input: Pick<RegisterDomainInput, 'livemode' | 'orgId' | 'name' | 'years' | 'registrantContactId' | 'nameservers' | 'autoRenew' | 'premiumPriceCents'> & {
        resumed?: boolean;
      },
    ): Promise<RegistrarStep & { termYears: number; nameserversApplied: boolean }> {
      const contact = await registrant(input);
      const terms: Registrar & RegistrarTerms = await registrars.forMode(input.livemode);
      const termYears = Math.min(input.years, terms.registrationTermYears ?? input.years);
      let nameserversApplied = false;
      const submitted = await paid(input.livemode, async (registrar) => {
        const result = await registrar.register({
          name: input.name,
          years: termYears,
          registrant: contactDetails(contact),
          registrantRegistrarId: await registrantRegistrarId(db, registrar, input.livemode, contact.id),
          ...(input.nameservers.length ? { nameservers: input.nameservers } : {}),
          autoRenew: input.autoRenew,
          resumed: input.resumed === true,
          ...usd(input.premiumPriceCents),
        });
        nameserversApplied = result.nameserversApplied;
        return doneAndOurs(registrar, input.name, stepOf(result, result.registrarReference));
      });
      return { ...submitted, termYears, nameserversApplied };
    },

    async registrarRegistrationStatus(input: { livemode: boolean; name: string; registrarReference: string }): Promise<RegistrarStep> {
      return call('poll', input.livemode, async (registrar) => {
        const status = await registrar.registrationStatus({ name: input.name, registrarReference: input.registrarReference });
        if (status.state === 'failed') {
          throw ApplicationFailure.nonRetryable(status.detail ?? 'The registrar failed the registration', 'REGISTRAR_REJECTED');
        }
        return doneAndOurs(registrar, input.name, stepOf(status, input.registrarReference));
      });
    },

    async registrarTransfer(
      input: Pick<TransferDomainInput, 'livemode' | 'orgId' | 'name' | 'authCode' | 'registrantContactId' | 'premiumPriceCents'> & { resumed?: boolean },
    ): Promise<RegistrarStep> {
      const contact = await registrant(input);
      return paid(input.livemode, async (registrar) => {
        const result = await registrar.transfer({
          name: input.name,
          authCode: input.authCode,
          registrant: contactDetails(contact),
          registrantRegistrarId: await registrantRegistrarId(db, registrar, input.livemode, contact.id),
          resumed: input.resumed === true,
          ...usd(input.premiumPriceCents),
        });
        return doneAndOurs(registrar, input.name, stepOf(result, result.registrarReference));
      });
    },

    async registrarTransferStatus(input: { livemode: boolean; name: string; registrarReference: string }): Promise<TransferStatus> {
      return call('poll', input.livemode, async (registrar) => {
        const status = await registrar.transferStatus(input);
        if (status.state === 'completed' && status.expiresAt) await registrar.disableAutoRenew(input.name);
        return status;
      });
    },

    async registrarCancelTransfer(input: { livemode: boolean; name: string; registrarReference: string }): Promise<TransferStatus> {
      return call('poll', input.livemode, async (registrar) => registrar.cancelTransfer(input));
    },

    /** The expiry upstream before a renewal is first sent: how a lost renewal answer is recognised later. */
    async registrarRenewBaseline(input: { livemode: boolean; name: string }): Promise<string | null> {
      return call('poll', input.livemode, async (registrar) => registrar.domainExpiry(input.name));
    },

    async registrarRenew(
      input: Pick<RenewDomainInput, 'livemode' | 'name' | 'years' | 'currentExpiresAt' | 'premiumPriceCents'> & { expiresBefore: string | null; resumed?: boolean },
    ): Promise<RegistrarStep> {
      return paid(input.livemode, async (registrar) => {
        const result = await registrar.renew({
          name: input.name,
          years: input.years,
          ...(input.currentExpiresAt ? { currentExpiresAt: input.currentExpiresAt } : {}),
          expiresBefore: input.expiresBefore,
          resumed: input.resumed === true,
          ...usd(input.premiumPriceCents),
        });
        return stepOf(result, result.registrarReference);
      });
    },

    async registrarRenewalStatus(input: { livemode: boolean; name: string; registrarReference: string; expiresBefore?: string | null }): Promise<RegistrarStep> {
      return call('poll', input.livemode, async (registrar) => {
        const status = await registrar.renewalStatus(input);
        if (status.state === 'failed') throw ApplicationFailure.nonRetryable(status.detail ?? 'The registrar failed the renewal', 'REGISTRAR_REJECTED');
        return stepOf(status, input.registrarReference);
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
      /** Null when the work was recognised from the domain itself; the stored reference is kept. */
      registrarReference: string | null;
      result: Record<string, unknown>;
    }): Promise<void> {
      const mode = modeOf(input.livemode);
      try {
        await capture({ db, operationId: input.operationId });
      } catch (err) {
        if (err instanceof ApiError && (err.code === RESERVATION_STATE_CONFLICT || err.code === 'NOT_FOUND')) {
          throw await failUncapturable({ db, logger }, { ...input, cause: err });
        }
        throw err;
      }
      let domain: Domain | undefined;
      await endOperation({
        db,
        mode,
        operationId: input.operationId,
        ending: { status: 'succeeded', result: { ...input.result, expires_at: input.expiresAt } },
        alongside: async (tx) => {
          domain = await activateDomain({ db: tx, mode, domainId: input.domainId, expiresAt: input.expiresAt, registrarReference: input.registrarReference });
        },
        onEnded: async (tx, ended) => {
          if (ended.type !== 'domain.renew' || !domain) return;
          // The operation's id names the event: a retried activity finds it instead of writing a second.
          await emitEvent({ db: tx, orgId: domain.orgId, livemode: domain.livemode, type: 'domain.renewed', object: presentDomain(domain), dedupeSeed: `renewed|${input.operationId}` });
        },
      });
      if (domain) await watchDomain({ temporal, config, domain, reason: `operation ${input.operationId} succeeded` });
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
      const mode = modeOf(input.livemode);
      await release({ db, operationId: input.operationId });
      const { domainStatus } = input;
      await endOperation({
        db,
        mode,
        operationId: input.operationId,
        ending: { status: input.status, error: { code: input.code, detail: input.detail } },
        ...(domainStatus ? { alongside: (tx) => changeDomainStatus({ db: tx, mode, domainId: input.domainId, to: domainStatus }).then(() => undefined) } : {}),
      });
      // A renewal that ended without renewing: the lifecycle looks again (its next auto-renew attempt, or expiry).
      const domain = domainStatus ? undefined : await findDomainById(db, mode, input.domainId);
      if (domain) await watchDomain({ temporal, config, domain, reason: `operation ${input.operationId} ${input.status}` });
    },
  };
}

export type PaidOperationActivities = ReturnType<typeof createPaidOperationActivities>;
