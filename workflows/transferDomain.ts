import { ApplicationFailure, condition, defineSignal, setHandler } from '@temporalio/workflow';
import { bookkeeping, createZoneBestEffort, failureOf, registrar, takeOperation } from './shared.js';

/** Sent by `POST …/operations/{id}/cancel` while the transfer is pending. */
export const cancelTransferSignal = defineSignal('cancelTransfer');

export interface TransferDomainInput {
  operationId: string;
  orgId: string;
  livemode: boolean;
  domainId: string;
  name: string;
  authCode: string;
  registrantContactId: string;
  /** Between registrar checks: seconds in test mode, hours live (a transfer takes days). */
  pollIntervalMs: number;
  /** Give up (and release the funds) after this long. */
  timeoutMs: number;
}

type Ending = { kind: 'completed'; expiresAt: string | null; registrarReference: string } | { kind: 'ended'; status: 'failed' | 'cancelled'; code: string; detail: string };

/**
 * Submits a transfer, then polls the registrar on a durable timer until it completes, is rejected,
 * is cancelled (signal) or times out. Completion captures the reservation; anything else releases it.
 */
export async function transferDomainWorkflow(input: TransferDomainInput): Promise<{ expiresAt: string | null }> {
  let cancelRequested = false;
  setHandler(cancelTransferSignal, () => {
    cancelRequested = true;
  });
  await takeOperation({ operationId: input.operationId, livemode: input.livemode });
  const base = { operationId: input.operationId, livemode: input.livemode, domainId: input.domainId };

  let ending: Ending;
  try {
    ending = await transferUntilDone(input, () => cancelRequested);
  } catch (err) {
    ending = { kind: 'ended', status: 'failed', ...failureOf(err) };
  }
  if (ending.kind === 'completed') {
    await bookkeeping.completeOperation({
      ...base,
      expiresAt: ending.expiresAt,
      registrarReference: ending.registrarReference,
      result: { domain: input.name, status: 'active' },
    });
    await createZoneBestEffort({ livemode: input.livemode, name: input.name, nameservers: [] });
    return { expiresAt: ending.expiresAt };
  }
  await bookkeeping.failOperation({ ...base, domainStatus: 'failed', status: ending.status, code: ending.code, detail: ending.detail });
  if (ending.status === 'cancelled') return { expiresAt: null };
  throw ApplicationFailure.nonRetryable(ending.detail, ending.code);
}

async function transferUntilDone(input: TransferDomainInput, cancelRequested: () => boolean): Promise<Ending> {
  const started = Date.now();
  const submitted = await registrar.registrarTransfer({
    livemode: input.livemode,
    orgId: input.orgId,
    name: input.name,
    authCode: input.authCode,
    registrantContactId: input.registrantContactId,
  });
  const reference = { livemode: input.livemode, name: input.name, registrarReference: submitted.registrarReference };
  const cancelled = async (): Promise<Ending> => {
    await registrar.registrarCancelTransfer(reference);
    return { kind: 'ended', status: 'cancelled', code: 'TRANSFER_CANCELLED', detail: 'The transfer was cancelled on request' };
  };
  // A cancellation that arrived while the transfer was being submitted is honoured before anything else.
  if (cancelRequested()) return cancelled();
  let status = await registrar.registrarTransferStatus(reference);
  while (status.state === 'pending') {
    // Wakes early when a cancellation arrives; otherwise a durable timer between checks.
    await condition(cancelRequested, input.pollIntervalMs);
    if (cancelRequested()) return cancelled();
    if (Date.now() - started >= input.timeoutMs) {
      await registrar.registrarCancelTransfer(reference);
      return { kind: 'ended', status: 'failed', code: 'TRANSFER_TIMED_OUT', detail: 'The transfer did not complete in time' };
    }
    status = await registrar.registrarTransferStatus(reference);
  }
  if (status.state === 'completed') {
    return { kind: 'completed', expiresAt: status.expiresAt ?? null, registrarReference: submitted.registrarReference };
  }
  return {
    kind: 'ended',
    status: status.state === 'cancelled' ? 'cancelled' : 'failed',
    code: status.state === 'cancelled' ? 'TRANSFER_CANCELLED' : 'TRANSFER_REJECTED',
    detail: status.detail ?? `The transfer was ${status.state} at the registrar`,
  };
}
