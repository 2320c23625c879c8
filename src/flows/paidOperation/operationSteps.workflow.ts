import { ApplicationFailure, log, patched, proxyActivities, proxyLocalActivities, sleep } from '@temporalio/workflow';
import type { PaidOperationActivities } from './activities.js';
import type { OperationActivities } from '../../features/domains/index.js';
import type { RegistrationActivities } from '../registerDomain/registrationActivities.js';
import type { DnsActivities } from '../../features/dns/index.js';
import { DOMAIN_OPERATION_RETRIES, type DomainOperationRetries, type RegistrarStep, type RegistrarStepDone } from '../../features/domains/operations.contract.js';
import { failureOf, PERMANENT_REGISTRAR_CODES, retryPolicy } from '../../temporal/retries.workflow.js';

/**
 * Operations started from here on run their bookkeeping (and a test-mode zone, which calls nobody)
 * as local activities: each is done inside the workflow task that reaches it, so it costs no trip
 * through the task queue, where a scheduled activity costs two. Runs started before keep their
 * scheduled activities (their recorded histories replay unchanged). Asked once, at the start of
 * the run (domainOperationActivities), so one run never mixes the two.
 */
export const LOCAL_BOOKKEEPING_PATCH = 'local-bookkeeping';

/**
 * The activities of a paid domain operation, retried as its input says (the production values
 * when it says nothing). Call it once, first thing in the workflow.
 */
export function domainOperationActivities(input: { livemode: boolean; retries?: Partial<DomainOperationRetries> }) {
  const retries = { ...DOMAIN_OPERATION_RETRIES, ...input.retries };
  const registrarRetry = retryPolicy(retries.registrar, PERMANENT_REGISTRAR_CODES);
  const local = patched(LOCAL_BOOKKEEPING_PATCH);
  const bookkeeping = { startToCloseTimeout: '30 seconds', retry: retryPolicy(retries.bookkeeping) } as const;
  const dns = { startToCloseTimeout: '30 seconds', retry: retryPolicy(retries.dnsZone) } as const;
  return {
    /** Registrar calls: 502, 503 and timeouts retried with back-off (Retry-After honoured by the activity). */
    registrar: proxyActivities<PaidOperationActivities>({ startToCloseTimeout: '30 seconds', retry: registrarRetry }),
    /**
     * Paid submissions (register, renew, transfer): each attempt reads the upstream state before it
     * POSTs, and the POST alone may take PAID_TIMEOUT_MS (src/registrar/dnsimple.ts, 45 s), so the
     * activity gets room for both; Temporal must not time out an attempt that is still waiting for the
     * registrar's answer and start another beside it.
     */
    paidRegistrar: proxyActivities<PaidOperationActivities>({
      startToCloseTimeout: '3 minutes',
      // A dead worker's attempt is noticed within seconds; the retry answers "unknown" (see ./activities.ts).
      heartbeatTimeout: '10 seconds',
      retry: registrarRetry,
    }),
    /**
     * Bookkeeping only touches our own database (and signals the domain's lifecycle): retried until
     * it answers. Each step is safe to repeat, as a local activity may be after a worker crash.
     */
    bookkeeping: local ? proxyLocalActivities<PaidOperationActivities & OperationActivities & RegistrationActivities>(bookkeeping) : proxyActivities<PaidOperationActivities & OperationActivities & RegistrationActivities>(bookkeeping),
    delegation: proxyActivities<RegistrationActivities>({ startToCloseTimeout: '30 seconds', retry: retryPolicy(retries.delegation) }),
    /** A live zone is created at PowerDNS, which may be slow or down: a scheduled activity, whoever runs it. */
    dns: local && !input.livemode ? proxyLocalActivities<Pick<DnsActivities, 'createDnsZone'>>(dns) : proxyActivities<Pick<DnsActivities, 'createDnsZone'>>(dns),
  };
}

export type DomainOperationActivities = ReturnType<typeof domainOperationActivities>;

/**
 * Registrations and transfers asked to turn WHOIS privacy on do so once the domain is ours. Runs
 * whose history was written without this step (by a worker from before it) skip it on replay.
 */
export const WHOIS_PRIVACY_PATCH = 'whois-privacy-after-acquisition';

/**
 * Turns WHOIS privacy on at the registrar once the domain is ours, when the request asked for it,
 * and stores it on the domain. Best effort, as the delegation: free to repeat, a few tries, and after
 * them the domain stays without it (GET shows `whois_privacy: false`) and the operation's result says
 * so. Undefined when nothing was asked.
 */
export async function applyWhoisPrivacy(
  acts: DomainOperationActivities,
  input: { livemode: boolean; domainId: string; name: string; whoisPrivacy?: boolean },
): Promise<boolean | undefined> {
  if (!input.whoisPrivacy || !patched(WHOIS_PRIVACY_PATCH)) return undefined;
  try {
    await acts.delegation.registrarApplyWhoisPrivacy({ livemode: input.livemode, domainId: input.domainId, name: input.name, enabled: true });
    return true;
  } catch (err) {
    log.error('WHOIS privacy not turned on at the registrar; the domain stays without it', { domain: input.name, failure: failureOf(err) });
    return false;
  }
}

/** What the operation's result adds when privacy was asked for and could not be turned on. */
export function whoisPrivacyResult(applied: boolean | undefined): { whois_privacy_applied?: false } {
  return applied === false ? { whois_privacy_applied: false } : {};
}

/**
 * Marks the operation running, or ends the workflow without touching anything when the api has
 * already abandoned it (it could not confirm the start and gave the money back).
 */
export async function takeOperation(acts: DomainOperationActivities, operation: { operationId: string; livemode: boolean }): Promise<void> {
  if (!(await acts.bookkeeping.markOperationRunning(operation))) {
    throw ApplicationFailure.nonRetryable('The operation was abandoned before its workflow started', 'OPERATION_ABANDONED');
  }
}

/**
 * Creates the domain's zone at the DNS provider once the domain is ours. Best effort: the domain
 * is already active and paid for, and the first record edit creates a missing zone anyway.
 */
export async function createZoneBestEffort(
  acts: DomainOperationActivities,
  input: { livemode: boolean; domainId: string; name: string; nameservers: string[] },
): Promise<void> {
  try {
    // The domain's id says whose zone it is (test names may be held by several organisations).
    await acts.dns.createDnsZone({ livemode: input.livemode, domainId: input.domainId, domainName: input.name, nameservers: input.nameservers });
  } catch (err) {
    log.warn('DNS zone not created; the first record edit will create it', { domain: input.name, failure: failureOf(err) });
  }
}

export interface PaidRegistrarStepProps {
  acts: DomainOperationActivities;
  operation: { operationId: string; livemode: boolean; domainId: string };
  pollIntervalMs: number;
  /** After an attempt whose outcome is unknown: how long the registrar gets to settle before we read again. */
  settleMs: number;
  /** What the domain becomes when the registrar refuses: `failed` for a new one, unchanged (null) for a renewal. */
  domainStatusOnFailure: 'failed' | null;
  /** `resumed`: an earlier attempt's outcome is unknown, so a refusal is checked against the upstream state. */
  submit: (resumed: boolean) => Promise<RegistrarStep>;
  poll: (reference: string) => Promise<RegistrarStep>;
  result: Record<string, unknown>;
}

/**
 * Drives one paid registrar action to its end: a pending answer with a reference is polled, one
 * without (outcome unknown) is submitted again after `settleMs`, and that submission reads the
 * upstream state before it POSTs. Throws what the registrar refused.
 */
export async function untilDone(props: Pick<PaidRegistrarStepProps, 'pollIntervalMs' | 'settleMs' | 'submit' | 'poll'>): Promise<RegistrarStepDone> {
  let step = await props.submit(false);
  while (step.state === 'pending') {
    if (step.reference === null) {
      await sleep(props.settleMs);
      step = await props.submit(true);
    } else {
      await sleep(props.pollIntervalMs);
      step = await props.poll(step.reference);
    }
  }
  return step;
}

/**
 * The shape of every paid registrar action: submit, poll a pending answer on a durable timer, then
 * capture the reservation on success, or release it, mark the operation failed and fail the workflow
 * with the registrar's code. A submission whose outcome is unknown is never repeated blindly: after
 * `settleMs` it is submitted again, and the submission reads the upstream state before it POSTs.
 */
export async function runPaidRegistrarStep(props: PaidRegistrarStepProps): Promise<{ expiresAt: string }> {
  const { acts, operation } = props;
  await takeOperation(acts, operation);
  let outcome: RegistrarStepDone;
  try {
    outcome = await untilDone(props);
  } catch (err) {
    const failure = failureOf(err);
    await acts.bookkeeping.failOperation({ ...operation, domainStatus: props.domainStatusOnFailure, status: 'failed', ...failure });
    throw ApplicationFailure.nonRetryable(failure.detail, failure.code);
  }
  await acts.bookkeeping.completeOperation({
    ...operation,
    expiresAt: outcome.expiresAt,
    registrarReference: outcome.reference,
    result: props.result,
  });
  return { expiresAt: outcome.expiresAt };
}
