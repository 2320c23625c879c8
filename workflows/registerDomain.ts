import { createZoneBestEffort, paidRegistrar, registrar, runPaidRegistrarStep } from './shared.js';

export interface RegisterDomainInput {
  operationId: string;
  orgId: string;
  livemode: boolean;
  domainId: string;
  name: string;
  years: number;
  registrantContactId: string;
  nameservers: string[];
  autoRenew: boolean;
  /** The price of a premium name as quoted, in cents; sent back to the registrar as confirmation. */
  premiumPriceCents: number | null;
  /** How long to wait between checks of a registration the registrar answered "pending". */
  pollIntervalMs: number;
  /** After an attempt whose outcome is unknown, before reading again; absent in older operations. */
  settleMs?: number;
}

/**
 * Registers a domain whose price the api has already reserved. Transient registrar faults (502, 503,
 * timeouts) are retried with back-off, visible as attempts in the history. On success the domain
 * becomes active and the reservation is captured; on a refusal the reservation is released and the
 * domain and operation are marked failed, and the workflow fails with the registrar's code.
 */
export async function registerDomainWorkflow(input: RegisterDomainInput): Promise<{ expiresAt: string }> {
  const outcome = await runPaidRegistrarStep({
    operation: { operationId: input.operationId, livemode: input.livemode, domainId: input.domainId },
    pollIntervalMs: input.pollIntervalMs,
    settleMs: input.settleMs ?? input.pollIntervalMs,
    domainStatusOnFailure: 'failed',
    submit: (resumed) =>
      paidRegistrar.registrarRegister({
        resumed,
        livemode: input.livemode,
        orgId: input.orgId,
        name: input.name,
        years: input.years,
        registrantContactId: input.registrantContactId,
        nameservers: input.nameservers,
        autoRenew: input.autoRenew,
        premiumPriceCents: input.premiumPriceCents,
      }),
    poll: (registrarReference) => registrar.registrarRegistrationStatus({ livemode: input.livemode, name: input.name, registrarReference }),
    result: { domain: input.name, status: 'active', years: input.years },
  });
  await createZoneBestEffort({ livemode: input.livemode, name: input.name, nameservers: input.nameservers });
  return outcome;
}
