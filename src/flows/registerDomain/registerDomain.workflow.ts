import { ApplicationFailure, log } from '@temporalio/workflow';
import type { RegisterDomainInput, RegistrarStepDone, RegistrationResult } from '../../features/domains/operations.contract.js';
import {
  applyWhoisPrivacy,
  createZoneBestEffort,
  domainOperationActivities,
  takeOperation,
  untilDone,
  whoisPrivacyResult,
  type DomainOperationActivities,
} from '../paidOperation/operationSteps.workflow.js';
import { failureOf } from '../../temporal/retries.workflow.js';

/**
 * Registers a domain whose price (one year's price times `years`) the api has already reserved.
 * A registrar that registers for one term only (DNSimple) gets the registration, then a renewal for
 * the remaining years, all one operation: one capture at the end. Each paid step reads the upstream
 * state before it POSTs, and an answer that was lost is read again after `settleMs`, never re-sent
 * blindly (see untilDone in ../paidOperation/operationSteps.workflow.ts). A refused registration
 * releases everything and fails the domain; a refused renewal after a registration keeps what was
 * done (see settleRegistrationInPart in ./registrationActivities.ts). Name servers and WHOIS privacy
 * asked for are then set at the registrar.
 */
export async function registerDomainWorkflow(input: RegisterDomainInput): Promise<RegistrationResult> {
  const operation = { operationId: input.operationId, livemode: input.livemode, domainId: input.domainId };
  const where = { livemode: input.livemode, name: input.name };
  const timing = { pollIntervalMs: input.pollIntervalMs, settleMs: input.settleMs ?? input.pollIntervalMs };
  const acts = domainOperationActivities(input);
  const { registrar, paidRegistrar, bookkeeping } = acts;
  await takeOperation(acts, operation);

  let registered: RegistrarStepDone;
  let termYears = input.years;
  let nameserversApplied = false;
  try {
    registered = await untilDone({
      ...timing,
      submit: async (resumed) => {
        const submitted = await paidRegistrar.registrarRegister({
          resumed,
          livemode: input.livemode,
          orgId: input.orgId,
          name: input.name,
          years: input.years,
          registrantContactId: input.registrantContactId,
          nameservers: input.nameservers,
          autoRenew: input.autoRenew,
          premiumPriceCents: input.premiumPriceCents,
        });
        ({ termYears, nameserversApplied } = submitted);
        return submitted;
      },
      poll: (reference) => registrar.registrarRegistrationStatus({ ...where, registrarReference: reference }),
    });
  } catch (err) {
    const failure = failureOf(err);
    await bookkeeping.failOperation({ ...operation, domainStatus: 'failed', status: 'failed', ...failure });
    throw ApplicationFailure.nonRetryable(failure.detail, failure.code);
  }

  let expiresAt = registered.expiresAt;
  const reference = registered.reference;
  if (termYears < input.years) {
    try {
      // The expiry upstream before the renewal is sent: a later one is a renewal that already happened.
      const expiresBefore = await registrar.registrarRenewBaseline(where);
      const renewed = await untilDone({
        ...timing,
        submit: (resumed) =>
          paidRegistrar.registrarRenew({
            ...where,
            years: input.years - termYears,
            currentExpiresAt: expiresAt,
            // A premium name's quoted price is confirmed back for the renewal as well.
            premiumPriceCents: input.premiumPriceCents,
            expiresBefore,
            resumed,
          }),
        poll: (ref) => registrar.registrarRenewalStatus({ ...where, registrarReference: ref, expiresBefore }),
      });
      expiresAt = renewed.expiresAt;
    } catch (err) {
      const failure = failureOf(err);
      // The registration stands: delegate it (and hide its registrant, if asked) before the operation ends, as on success.
      await delegate(acts, input, nameserversApplied);
      await applyWhoisPrivacy(acts, input);
      await bookkeeping.settleRegistrationInPart({
        ...operation,
        orgId: input.orgId,
        name: input.name,
        years: input.years,
        yearsDone: termYears,
        expiresAt,
        registrarReference: reference,
        failure,
      });
      await createZoneBestEffort(acts, { livemode: input.livemode, domainId: input.domainId, name: input.name, nameservers: input.nameservers });
      throw ApplicationFailure.nonRetryable(`Registered for ${termYears} of ${input.years} years: ${failure.detail}`, 'PARTIALLY_REGISTERED');
    }
  }

  const delegated = await delegate(acts, input, nameserversApplied);
  const privacy = await applyWhoisPrivacy(acts, input);
  await bookkeeping.completeOperation({
    ...operation,
    expiresAt,
    registrarReference: reference,
    result: {
      domain: input.name,
      status: 'active',
      years: input.years,
      ...(delegated ? {} : { nameservers_applied: false }),
      ...whoisPrivacyResult(privacy),
    },
  });
  await createZoneBestEffort(acts, { livemode: input.livemode, domainId: input.domainId, name: input.name, nameservers: input.nameservers });
  return { expiresAt };
}

/**
 * True when the registrar delegates to the name servers asked for (or none were asked for).
 * Changing the delegation is free and safe to repeat; after its few tries the domain stays on the
 * registrar's default name servers and the operation's result says so.
 */
async function delegate(acts: DomainOperationActivities, input: RegisterDomainInput, alreadyApplied: boolean): Promise<boolean> {
  if (alreadyApplied || input.nameservers.length === 0) return true;
  try {
    await acts.delegation.registrarSetNameservers({ livemode: input.livemode, name: input.name, nameservers: input.nameservers });
    return true;
  } catch (err) {
    log.error('Name servers not set at the registrar; the domain keeps its default delegation', { domain: input.name, failure: failureOf(err) });
    return false;
  }
}
