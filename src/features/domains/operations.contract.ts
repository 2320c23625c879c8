/** What the paid domain operations' workflows (register, renew, transfer) are started with and answer. */
import { defineSignal } from '@temporalio/workflow';
import { OWN_STORE_RETRY, type RetryTiming } from '../../temporal/retries.contract.js';
import type { DisableDnssecInput, EnableDnssecInput } from './dnssecOperations.contract.js';

/**
 * Where a paid registrar action stands. `reference` is the registrar's id of the registration,
 * renewal or transfer; null when an attempt's outcome is unknown (its answer was lost) or the work
 * was recognised from the domain itself. A pending step without a reference is submitted again after
 * a while: the submission reads the upstream state first, so it never repeats work that happened.
 */
export type RegistrarStep =
  | { state: 'done'; expiresAt: string; reference: string | null }
  | { state: 'pending'; reference: string | null };

export type RegistrarStepDone = Extract<RegistrarStep, { state: 'done' }>;

/** The activities of a paid domain operation (register, renew, transfer), by what they call. */
export interface DomainOperationRetries {
  /**
   * Registrar reads and paid submissions, until they answer: 502, 503 and timeouts are waited
   * out (Retry-After honoured), and a retried paid attempt reads as an unknown outcome
   * (src/flows/paidOperation/activities.ts), so a submission is never repeated blindly whatever
   * this says.
   */
  registrar: RetryTiming;
  bookkeeping: RetryTiming;
  /**
   * Setting the name servers (after a registration) and WHOIS privacy (after a registration or
   * transfer) asked for: free and safe to repeat, a few tries.
   */
  delegation: RetryTiming;
  /** Creating the domain's DNS zone once it is ours: best effort (the first record edit creates it too). */
  dnsZone: RetryTiming;
}

export const DOMAIN_OPERATION_RETRIES: DomainOperationRetries = {
  registrar: { initialIntervalMs: 1_000, maximumIntervalMs: 60_000 },
  bookkeeping: OWN_STORE_RETRY,
  delegation: { initialIntervalMs: 2_000, maximumIntervalMs: 60_000, maximumAttempts: 5 },
  dnsZone: { initialIntervalMs: 2_000, maximumIntervalMs: 60_000, maximumAttempts: 10 },
};

/** What every paid domain operation's workflow is started with: the operation and the domain it acts on. */
export interface DomainOperationInput {
  operationId: string;
  orgId: string;
  livemode: boolean;
  domainId: string;
  name: string;
  /** Absent in operations started before retries were inputs: DOMAIN_OPERATION_RETRIES then. */
  retries?: Partial<DomainOperationRetries>;
}

export interface RegisterDomainInput extends DomainOperationInput {
  years: number;
  registrantContactId: string;
  nameservers: string[];
  autoRenew: boolean;
  /** The price of a premium name as quoted, in cents; sent back to the registrar as confirmation. */
  premiumPriceCents: number | null;
  /** Turn WHOIS privacy on once registered; absent when not asked for (and in older operations). */
  whoisPrivacy?: boolean;
  /** How long to wait between checks of a registration the registrar answered "pending". */
  pollIntervalMs: number;
  /** After an attempt whose outcome is unknown, before reading again; absent in older operations. */
  settleMs?: number;
}

export interface RenewDomainInput extends DomainOperationInput {
  years: number;
  currentExpiresAt: string | null;
  /** Per year, for premium names: sent back to the registrar as confirmation of its price. */
  premiumPriceCents?: number | null;
  pollIntervalMs: number;
  /** After an attempt whose outcome is unknown, before reading again; absent in older operations. */
  settleMs?: number;
}

export interface TransferDomainInput extends DomainOperationInput {
  authCode: string;
  registrantContactId: string;
  /** Per year, for premium names: sent back to the registrar as confirmation of its price. */
  premiumPriceCents?: number | null;
  /** Between registrar checks: seconds in test mode, hours live (a transfer takes days). */
  pollIntervalMs: number;
  /** After an unknown outcome or a cancellation, before reading again; absent in older operations. */
  settleMs?: number;
  /** Ask the registrar to cancel (and release the funds once it has) after this long. */
  timeoutMs: number;
  /** Turn WHOIS privacy on once transferred; absent when not asked for (and in older operations). */
  whoisPrivacy?: boolean;
}

/** Register and renew end with the new expiry; a transfer may end without one (cancelled, or not told). */
export interface RegistrationResult {
  expiresAt: string;
}
export interface TransferResult {
  expiresAt: string | null;
}

/**
 * The stored `workflow_input` of an operation, by operation type: what its workflow is started
 * with, by the api and again by the reconciler.
 */
export interface OperationWorkflowInputs {
  'domain.register': RegisterDomainInput;
  'domain.transfer': TransferDomainInput;
  'domain.renew': RenewDomainInput;
  'dnssec.enable': EnableDnssecInput;
  'dnssec.disable': DisableDnssecInput;
}
export type OperationWorkflowInput = OperationWorkflowInputs[keyof OperationWorkflowInputs];

/** Sent by `POST …/operations/{id}/cancel` while the transfer is pending. */
export const cancelTransferSignal = defineSignal('cancelTransfer');
