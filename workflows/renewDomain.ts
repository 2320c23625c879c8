import { ApplicationFailure, sleep } from '@temporalio/workflow';
import { bookkeeping, failureOf, registrar } from './shared.js';

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
  await bookkeeping.markOperationRunning({ operationId: input.operationId, livemode: input.livemode });
  let outcome: { expiresAt: string; registrarReference: string };
  try {
    let step = await registrar.registrarRenew({
      livemode: input.livemode,
      name: input.name,
      years: input.years,
      currentExpiresAt: input.currentExpiresAt,
    });
    while (step.state === 'pending') {
      await sleep(input.pollIntervalMs);
      step = await registrar.registrarRenewalStatus({ livemode: input.livemode, name: input.name, registrarReference: step.registrarReference });
    }
    outcome = step;
  } catch (err) {
    const failure = failureOf(err);
    await bookkeeping.failOperation({ ...base(input), domainStatus: null, status: 'failed', ...failure });
    throw ApplicationFailure.nonRetryable(failure.detail, failure.code);
  }
  await bookkeeping.completeOperation({
    ...base(input),
    expiresAt: outcome.expiresAt,
    registrarReference: outcome.registrarReference,
    result: { domain: input.name, years: input.years },
  });
  return { expiresAt: outcome.expiresAt };
}

function base(input: RenewDomainInput) {
  return { operationId: input.operationId, livemode: input.livemode, domainId: input.domainId };
}
