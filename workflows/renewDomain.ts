import { registrar, runPaidRegistrarStep } from './shared.js';

export interface RenewDomainInput {
  operationId: string;
  orgId: string;
  livemode: boolean;
  domainId: string;
  name: string;
  years: number;
  currentExpiresAt: string | null;
  pollIntervalMs: number;
}

/**
 * Renews a domain whose price the api has reserved: on success `expires_at` moves on and the
 * reservation is captured; on a refusal it is released and the domain stays as it was.
 */
export async function renewDomainWorkflow(input: RenewDomainInput): Promise<{ expiresAt: string }> {
  return runPaidRegistrarStep({
    operation: { operationId: input.operationId, livemode: input.livemode, domainId: input.domainId },
    pollIntervalMs: input.pollIntervalMs,
    domainStatusOnFailure: null,
    submit: () =>
      registrar.registrarRenew({ livemode: input.livemode, name: input.name, years: input.years, currentExpiresAt: input.currentExpiresAt }),
    poll: (registrarReference) => registrar.registrarRenewalStatus({ livemode: input.livemode, name: input.name, registrarReference }),
    result: { domain: input.name, years: input.years },
  });
}
