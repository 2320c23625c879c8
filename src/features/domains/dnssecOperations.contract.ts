/**
 * What the DNSSEC operations (sign a zone, unsign it) are started with: operation inputs, stored
 * on the operation and started by the operations of this feature (operations.contract.ts), so they
 * are declared here; dns runs them (src/features/dns/dnssec.workflow.ts) and holds their retry
 * timings (DNSSEC_RETRIES in dns/dnssec.contract.ts) and results.
 */
import type { RetryTiming } from '../../temporal/retries.contract.js';

/** The activities of a DNSSEC operation, by what they call. */
export interface DnssecRetries {
  /** PowerDNS: adding or removing the key and rectifying; safe to repeat, retried until it answers. */
  provider: RetryTiming;
  /** The registrar's DS records: each step lists first, so a retry never adds a second DS. */
  registrar: RetryTiming;
  bookkeeping: RetryTiming;
}

/**
 * What both DNSSEC workflows are started with: the operation and the domain, in the shape every
 * operation's input has (`orgId`, `livemode`, `name` name the run in Temporal).
 */
export interface DnssecOperationInput {
  operationId: string;
  orgId: string;
  livemode: boolean;
  domainId: string;
  name: string;
  retries?: Partial<DnssecRetries>;
}

export type EnableDnssecInput = DnssecOperationInput;

export interface DisableDnssecInput extends DnssecOperationInput {
  /**
   * After the DS is withdrawn at the registrar, how long the zone stays signed: the parent's DS
   * TTL plus the registry's publication delay, so no resolver still holding the DS meets an
   * unsigned zone (`DNSSEC_DS_REMOVAL_WAIT`; seconds in tests).
   */
  dsRemovalWaitMs: number;
}
