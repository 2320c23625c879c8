import type { LeakSource } from '../../metrics/registry.js';
import { OWN_STORE_RETRY, type RetryTiming, type ScheduledRunInput } from '../../temporal/retries.contract.js';

export type { LeakSource };

export interface LeakResponseRetries {
  /** Revoking the key in our database and every api process's cache. */
  keys: RetryTiming;
  /** Until the SMTP server accepts the owner's e-mail (a 5xx refusal is final). */
  mail: RetryTiming;
}

export const LEAK_RESPONSE_RETRIES: LeakResponseRetries = {
  keys: OWN_STORE_RETRY,
  mail: { initialIntervalMs: 1_000, maximumIntervalMs: 10 * 60_000 },
};

export interface LeakedKeyInput {
  /** Absent in runs started before retries were inputs: LEAK_RESPONSE_RETRIES then. */
  retries?: Partial<LeakResponseRetries>;
  keyId: string;
  mode: 'live' | 'test';
  /** Where the key was found (a public URL); goes into the key's record and the owner's e-mail. */
  sourceUrl: string;
  source: LeakSource;
  /** When it was found (ISO 8601). */
  foundAt: string;
}

export interface LeakedKeyResult {
  /** `revoked` (live), `reported` (test keys are never revoked), `already_revoked`, or `gone` (deleted meanwhile). */
  outcome: 'revoked' | 'already_revoked' | 'reported' | 'gone';
  notified: boolean;
  messageId: string | null;
}

export interface LeakScanInput extends ScheduledRunInput {
  query?: string;
  perPage?: number;
}

export interface LeakScanSummary {
  pages: number;
  /** Token-shaped strings in the results. */
  tokens: number;
  /** Of those, the ones whose checksum holds (the rest never reach the database). */
  wellFormed: number;
  /** Well-formed tokens not seen by an earlier scan. */
  unseen: number;
  /** Active keys among them, each given to a leak workflow. */
  keysFound: number;
  workflowsStarted: number;
}
