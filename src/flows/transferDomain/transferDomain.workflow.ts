import { ApplicationFailure, condition, setHandler, sleep } from '@temporalio/workflow';
import { cancelTransferSignal, type TransferDomainInput, type TransferResult } from '../../features/domains/operations.contract.js';
import type { TransferStatus } from '../../registrar/port.js';
import {
  applyWhoisPrivacy,
  createZoneBestEffort,
  domainOperationActivities,
  takeOperation,
  whoisPrivacyResult,
  type DomainOperationActivities,
} from '../paidOperation/operationSteps.workflow.js';
import { failureOf } from '../../temporal/retries.workflow.js';

type Ending =
  | { kind: 'completed'; expiresAt: string | null; registrarReference: string | null; cancelRefused: boolean }
  | { kind: 'ended'; status: 'failed' | 'cancelled'; code: string; detail: string };

/**
 * Submits a transfer, then polls the registrar on a durable timer until it completes, is rejected,
 * or is cancelled. A cancellation (signal, or the timeout) is only a request to the registrar: it
 * answers 202 "queued", and the transfer may still complete. The workflow keeps polling until the
 * registrar says `cancelled` or `transferred`, and settles by what happened: completed captures
 * (the domain is ours and was paid for upstream), anything else releases.
 */
export async function transferDomainWorkflow(input: TransferDomainInput): Promise<TransferResult> {
  let cancelRequested = false;
  setHandler(cancelTransferSignal, () => {
    cancelRequested = true;
  });
  const acts = domainOperationActivities(input);
  await takeOperation(acts, { operationId: input.operationId, livemode: input.livemode });
  const base = { operationId: input.operationId, livemode: input.livemode, domainId: input.domainId };

  let ending: Ending;
  try {
    ending = await transferUntilDone(acts, input, () => cancelRequested);
  } catch (err) {
    ending = { kind: 'ended', status: 'failed', ...failureOf(err) };
  }
  if (ending.kind === 'completed') {
    const privacy = await applyWhoisPrivacy(acts, input);
    await acts.bookkeeping.completeOperation({
      ...base,
      expiresAt: ending.expiresAt,
      registrarReference: ending.registrarReference,
      result: { domain: input.name, status: 'active', ...(ending.cancelRefused ? { cancel_refused: true } : {}), ...whoisPrivacyResult(privacy) },
    });
    await createZoneBestEffort(acts, { livemode: input.livemode, domainId: input.domainId, name: input.name, nameservers: [] });
    return { expiresAt: ending.expiresAt };
  }
  await acts.bookkeeping.failOperation({ ...base, domainStatus: 'failed', status: ending.status, code: ending.code, detail: ending.detail });
  if (ending.status === 'cancelled') return { expiresAt: null };
  throw ApplicationFailure.nonRetryable(ending.detail, ending.code);
}

async function transferUntilDone(acts: DomainOperationActivities, input: TransferDomainInput, cancelRequested: () => boolean): Promise<Ending> {
  const { registrar, paidRegistrar } = acts;
  const started = Date.now();
  const settleMs = input.settleMs ?? input.pollIntervalMs;
  const timedOut = () => Date.now() - started >= input.timeoutMs;
  const submit = (resumed: boolean) =>
    paidRegistrar.registrarTransfer({
      livemode: input.livemode,
      orgId: input.orgId,
      name: input.name,
      authCode: input.authCode,
      registrantContactId: input.registrantContactId,
      premiumPriceCents: input.premiumPriceCents ?? null,
      resumed,
    });
  let submitted = await submit(false);
  // Outcome unknown (no reference): wait, then submit again; the submission reads the domain first.
  while (submitted.state === 'pending' && submitted.reference === null) {
    if (timedOut()) return { kind: 'ended', status: 'failed', code: 'TRANSFER_TIMED_OUT', detail: 'The transfer did not complete in time' };
    await sleep(settleMs);
    submitted = await submit(true);
  }
  if (submitted.state === 'done') return { kind: 'completed', expiresAt: submitted.expiresAt, registrarReference: submitted.reference, cancelRefused: false };

  const registrarReference = submitted.reference;
  if (registrarReference === null) throw ApplicationFailure.nonRetryable('The transfer has no registrar reference', 'INTERNAL');
  const reference = { livemode: input.livemode, name: input.name, registrarReference };
  let cancel: 'none' | 'requested' | 'timed-out' = 'none';
  const sendCancel = (why: 'requested' | 'timed-out'): Promise<TransferStatus> => {
    cancel = why;
    return registrar.registrarCancelTransfer(reference);
  };
  // A cancellation that arrived while the transfer was being submitted is honoured before anything else.
  let status = cancelRequested() ? await sendCancel('requested') : await registrar.registrarTransferStatus(reference);
  while (status.state === 'pending') {
    if (cancel === 'none') {
      // Wakes early when a cancellation arrives; otherwise a durable timer between checks.
      await condition(cancelRequested, input.pollIntervalMs);
      if (cancelRequested()) status = await sendCancel('requested');
      else if (timedOut()) status = await sendCancel('timed-out');
      else status = await registrar.registrarTransferStatus(reference);
    } else {
      // cancelDomainTransfer answers 202 (queued): the registrar decides how it ends.
      await sleep(settleMs);
      status = await registrar.registrarTransferStatus(reference);
    }
  }
  return settle(status, cancel, registrarReference);
}

function settle(status: TransferStatus, cancel: 'none' | 'requested' | 'timed-out', registrarReference: string): Ending {
  switch (status.state) {
    case 'completed':
      return { kind: 'completed', expiresAt: status.expiresAt ?? null, registrarReference, cancelRefused: cancel !== 'none' };
    case 'cancelled':
      return cancel === 'timed-out'
        ? { kind: 'ended', status: 'failed', code: 'TRANSFER_TIMED_OUT', detail: 'The transfer did not complete in time and was cancelled' }
        : { kind: 'ended', status: 'cancelled', code: 'TRANSFER_CANCELLED', detail: status.detail ?? 'The transfer was cancelled' };
    default:
      return { kind: 'ended', status: 'failed', code: 'TRANSFER_REJECTED', detail: status.detail ?? `The transfer was ${status.state} at the registrar` };
  }
}
