import { ApplicationFailure, log, proxyActivities, proxyLocalActivities, sleep } from '@temporalio/workflow';
import type { DnssecActivities } from './dnssecActivities.js';
import type { OperationActivities } from '../domains/index.js';
import { DNSSEC_RETRIES, type DisableDnssecInput, type DnssecOperationInput, type DnssecResult, type EnableDnssecInput } from './dnssec.contract.js';
import { failureOf, PERMANENT_REGISTRAR_CODES, retryPolicy } from '../../temporal/retries.workflow.js';

function dnssecActivities(input: DnssecOperationInput) {
  const retries = { ...DNSSEC_RETRIES, ...input.retries };
  return {
    provider: proxyActivities<DnssecActivities>({ startToCloseTimeout: '1 minute', retry: retryPolicy(retries.provider) }),
    registrar: proxyActivities<DnssecActivities>({ startToCloseTimeout: '1 minute', retry: retryPolicy(retries.registrar, PERMANENT_REGISTRAR_CODES) }),
    bookkeeping: proxyLocalActivities<DnssecActivities & Pick<OperationActivities, 'markOperationRunning'>>({ startToCloseTimeout: '30 seconds', retry: retryPolicy(retries.bookkeeping) }),
  };
}

type Acts = ReturnType<typeof dnssecActivities>;

async function take(acts: Acts, input: DnssecOperationInput): Promise<void> {
  if (!(await acts.bookkeeping.markOperationRunning({ operationId: input.operationId, livemode: input.livemode }))) {
    throw ApplicationFailure.nonRetryable('The operation was abandoned before its workflow started', 'OPERATION_ABANDONED');
  }
}

function zoneOf(input: DnssecOperationInput) {
  return { livemode: input.livemode, domainId: input.domainId, name: input.name };
}

function ending(input: DnssecOperationInput, status: 'active' | 'off', failure?: { code: string; detail: string }) {
  return { operationId: input.operationId, livemode: input.livemode, orgId: input.orgId, domainId: input.domainId, name: input.name, status, ...(failure ? { failure } : {}) };
}

/**
 * `POST …/dnssec`: signs the zone (PowerDNS, ECDSA P-256), then in live mode publishes its DS at
 * the registrar. PowerDNS faults are retried until it answers and registrar faults likewise; a
 * refusal of either ends the operation failed with the zone unsigned again, which is safe at once:
 * a refused DS was never published, so no resolver expects signatures.
 */
export async function enableDnssecWorkflow(input: EnableDnssecInput): Promise<DnssecResult> {
  const acts = dnssecActivities(input);
  await take(acts, input);
  try {
    const key = await acts.provider.dnssecSignZone(zoneOf(input));
    await acts.registrar.dnssecPublishDs({ livemode: input.livemode, name: input.name, ds: key.ds });
  } catch (err) {
    const failure = failureOf(err);
    try {
      await acts.provider.dnssecUnsignZone(zoneOf(input));
    } catch (unsignErr) {
      // The key stays, harmless without a DS at the parent; the next POST keeps and publishes it.
      log.warn('zone left signed after a failed DNSSEC start', { domain: input.name, failure: failureOf(unsignErr) });
    }
    await acts.bookkeeping.dnssecFinish(ending(input, 'off', failure));
    throw ApplicationFailure.nonRetryable(failure.detail, failure.code);
  }
  return acts.bookkeeping.dnssecFinish(ending(input, 'active'));
}

/**
 * `DELETE …/dnssec`: withdraws the DS at the registrar first, waits `dsRemovalWaitMs` (the parent's
 * DS TTL and the registry's delay: until then resolvers may hold the DS and expect signatures), and
 * only then unsigns the zone. A registrar refusing the withdrawal leaves DNSSEC active.
 */
export async function disableDnssecWorkflow(input: DisableDnssecInput): Promise<DnssecResult> {
  const acts = dnssecActivities(input);
  await take(acts, input);
  try {
    await acts.registrar.dnssecWithdrawDs({ livemode: input.livemode, name: input.name });
  } catch (err) {
    const failure = failureOf(err);
    await acts.bookkeeping.dnssecFinish(ending(input, 'active', failure));
    throw ApplicationFailure.nonRetryable(failure.detail, failure.code);
  }
  await sleep(input.dsRemovalWaitMs);
  try {
    await acts.provider.dnssecUnsignZone(zoneOf(input));
  } catch (err) {
    // The DS is gone, which is what resolvers act on: the key left in the zone is harmless.
    const failure = failureOf(err);
    await acts.bookkeeping.dnssecFinish(ending(input, 'off', failure));
    throw ApplicationFailure.nonRetryable(failure.detail, failure.code);
  }
  return acts.bookkeeping.dnssecFinish(ending(input, 'off'));
}
