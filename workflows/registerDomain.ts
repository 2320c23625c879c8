import { ApplicationFailure, sleep } from '@temporalio/workflow';
import { bookkeeping, createZoneBestEffort, failureOf, registrar } from './shared.js';

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
}

/**
 * Registers a domain whose price the api has already reserved. Transient registrar faults (502, 503,
 * timeouts) are retried with back-off, visible as attempts in the history. On success the domain
 * becomes active and the reservation is captured; on a refusal the reservation is released and the
 * domain and operation are marked failed, and the workflow fails with the registrar's code.
 */
export async function registerDomainWorkflow(input: RegisterDomainInput): Promise<{ expiresAt: string }> {
  await bookkeeping.markOperationRunning({ operationId: input.operationId, livemode: input.livemode });
  let outcome: { expiresAt: string; registrarReference: string };
  try {
    let step = await registrar.registrarRegister({
      livemode: input.livemode,
      orgId: input.orgId,
      name: input.name,
      years: input.years,
      registrantContactId: input.registrantContactId,
      nameservers: input.nameservers,
      autoRenew: input.autoRenew,
      premiumPriceCents: input.premiumPriceCents,
    });
    while (step.state === 'pending') {
      await sleep(input.pollIntervalMs);
      step = await registrar.registrarRegistrationStatus({ livemode: input.livemode, name: input.name, registrarReference: step.registrarReference });
    }
    outcome = step;
  } catch (err) {
    const failure = failureOf(err);
    await bookkeeping.failOperation({
      operationId: input.operationId,
      livemode: input.livemode,
      domainId: input.domainId,
      domainStatus: 'failed',
      status: 'failed',
      ...failure,
    });
    throw ApplicationFailure.nonRetryable(failure.detail, failure.code);
  }
  await bookkeeping.completeOperation({
    operationId: input.operationId,
    livemode: input.livemode,
    domainId: input.domainId,
    expiresAt: outcome.expiresAt,
    registrarReference: outcome.registrarReference,
    result: { domain: input.name, status: 'active', years: input.years },
  });
  await createZoneBestEffort({ livemode: input.livemode, name: input.name, nameservers: input.nameservers });
  return { expiresAt: outcome.expiresAt };
}
