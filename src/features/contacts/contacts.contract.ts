import { OWN_STORE_RETRY, type RetryTiming } from '../../temporal/retries.contract.js';

export interface ContactSyncRetries {
  /**
   * A registrar outage is waited out for a while (about two hours by default); after that the
   * next registration or transfer using the contact sends the change anyway (its stored registrar
   * version is behind).
   */
  registrar: RetryTiming;
  bookkeeping: RetryTiming;
}

export const CONTACT_SYNC_RETRIES: ContactSyncRetries = {
  registrar: { initialIntervalMs: 5_000, maximumIntervalMs: 10 * 60_000, maximumAttempts: 20 },
  bookkeeping: OWN_STORE_RETRY,
};

export interface SyncRegistrarContactInput {
  livemode: boolean;
  orgId: string;
  contactId: string;
  /** The version that was saved; part of the workflow id, so each change gets its own run. */
  version: number;
  /** Absent in runs started before retries were inputs: CONTACT_SYNC_RETRIES then. */
  retries?: Partial<ContactSyncRetries>;
}
