import { ActivityFailure, ApplicationFailure, proxyActivities, sleep } from '@temporalio/workflow';
import type { Activities } from '../activities/index.js';

/** Registrar refusals that no retry can fix; every other failure is retried with back-off. */
export const PERMANENT_REGISTRAR_CODES = ['REGISTRAR_REJECTED', 'DOMAIN_NOT_AVAILABLE', 'DOMAIN_LOCKED'];

const registrar = proxyActivities<Activities>({
  startToCloseTimeout: '30 seconds',
  retry: { initialInterval: '1 second', backoffCoefficient: 2, maximumInterval: '1 minute', nonRetryableErrorTypes: PERMANENT_REGISTRAR_CODES },
});

// Bookkeeping only touches our own database: retry until it answers.
const bookkeeping = proxyActivities<Activities>({
  startToCloseTimeout: '30 seconds',
  retry: { initialInterval: '1 second', backoffCoefficient: 2, maximumInterval: '30 seconds' },
});

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

function failureOf(err: unknown): { code: string; detail: string } {
  const cause = err instanceof ActivityFailure ? err.cause : err;
  if (cause instanceof ApplicationFailure) return { code: cause.type ?? 'REGISTRAR_REJECTED', detail: cause.message };
  return { code: 'INTERNAL', detail: 'The registration failed unexpectedly' };
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
    await bookkeeping.failRegistration({ operationId: input.operationId, livemode: input.livemode, domainId: input.domainId, ...failure });
    throw ApplicationFailure.nonRetryable(failure.detail, failure.code);
  }
  await bookkeeping.completeRegistration({
    operationId: input.operationId,
    livemode: input.livemode,
    domainId: input.domainId,
    expiresAt: outcome.expiresAt,
    registrarReference: outcome.registrarReference,
  });
  return { expiresAt: outcome.expiresAt };
}
