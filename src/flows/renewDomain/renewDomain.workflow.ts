import type { RegistrationResult, RenewDomainInput } from '../../features/domains/operations.contract.js';
import { domainOperationActivities, runPaidRegistrarStep } from '../paidOperation/operationSteps.workflow.js';

/**
 * Renews a domain whose price the api has reserved: on success `expires_at` moves on and the
 * reservation is captured; on a refusal it is released and the domain stays as it was.
 */
export async function renewDomainWorkflow(input: RenewDomainInput): Promise<RegistrationResult> {
  const acts = domainOperationActivities(input);
  const { registrar, paidRegistrar } = acts;
  // The expiry upstream before the first attempt: a later expiry is a renewal that already happened.
  let expiresBefore: string | null | undefined;
  const baseline = async (): Promise<string | null> => {
    if (expiresBefore === undefined) expiresBefore = await registrar.registrarRenewBaseline({ livemode: input.livemode, name: input.name });
    return expiresBefore;
  };
  return runPaidRegistrarStep({
    acts,
    operation: { operationId: input.operationId, livemode: input.livemode, domainId: input.domainId },
    pollIntervalMs: input.pollIntervalMs,
    settleMs: input.settleMs ?? input.pollIntervalMs,
    domainStatusOnFailure: null,
    submit: async (resumed) =>
      paidRegistrar.registrarRenew({
        livemode: input.livemode,
        name: input.name,
        years: input.years,
        currentExpiresAt: input.currentExpiresAt,
        premiumPriceCents: input.premiumPriceCents ?? null,
        expiresBefore: await baseline(),
        resumed,
      }),
    poll: async (registrarReference) =>
      registrar.registrarRenewalStatus({ livemode: input.livemode, name: input.name, registrarReference, expiresBefore: await baseline() }),
    result: { domain: input.name, years: input.years },
  });
}
