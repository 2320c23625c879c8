/** What the DNSSEC workflows (sign a zone, unsign it) are started with and answer (docs/api-guide.md, DNSSEC). */
import { OWN_STORE_RETRY } from '../../temporal/retries.contract.js';
import type { DnssecRetries } from '../domains/index.js';

// Their inputs are operation inputs, declared with the operations they are stored on.
export type { DisableDnssecInput, DnssecOperationInput, DnssecRetries, EnableDnssecInput } from '../domains/index.js';

export const DNSSEC_RETRIES: DnssecRetries = {
  provider: { initialIntervalMs: 2_000, maximumIntervalMs: 5 * 60_000 },
  registrar: { initialIntervalMs: 2_000, maximumIntervalMs: 5 * 60_000 },
  bookkeeping: OWN_STORE_RETRY,
};

/** One DS as the API answers it. */
export interface DsRecordView {
  key_tag: number;
  algorithm: number;
  digest_type: number;
  digest: string;
}

export interface DnssecResult {
  status: 'active' | 'off';
  ds_records: DsRecordView[];
}
