/**
 * The Temporal boundary: every workflow's input and result, its signals, and the registrar step
 * the paid activities answer with. It imports nothing of ours, so workflows, activities and
 * services all import from here and never from each other (no import circle; `import-x/no-cycle`
 * in eslint.config.js). Workflow code imports it too, so it stays deterministic: types,
 * `defineSignal` and `defineQuery` only.
 */
import { defineQuery, defineSignal } from '@temporalio/workflow';

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

/**
 * How long a workflow waits between attempts of an activity that failed, and how many it makes
 * (absent: until one succeeds). Every duration a workflow waits is part of its input, so tests run
 * the long paths (back-offs, exhausted retries) in seconds; the starters send the production values
 * below, and a workflow started without them (older operations, recorded histories) uses them too.
 */
export interface RetryTiming {
  initialIntervalMs: number;
  /** The back-off doubles after each attempt, up to this. */
  maximumIntervalMs: number;
  maximumAttempts?: number;
}

/** Our own database and Redis: retried until they answer. */
export const OWN_STORE_RETRY: RetryTiming = { initialIntervalMs: 1_000, maximumIntervalMs: 30_000 };

/** The activities of a paid domain operation (register, renew, transfer), by what they call. */
export interface DomainOperationRetries {
  /**
   * Registrar reads and paid submissions, until they answer: 502, 503 and timeouts are waited
   * out (Retry-After honoured), and a retried paid attempt reads as an unknown outcome
   * (activities/domains.ts), so a submission is never repeated blindly whatever this says.
   */
  registrar: RetryTiming;
  bookkeeping: RetryTiming;
  /** Setting the name servers asked for after a registration: free and safe to repeat, a few tries. */
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
}
export type OperationWorkflowInput = OperationWorkflowInputs[keyof OperationWorkflowInputs];

/** Sent by `POST …/operations/{id}/cancel` while the transfer is pending. */
export const cancelTransferSignal = defineSignal('cancelTransfer');

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

/** Where a leaked key was reported from. */
export type LeakSource = 'github_secret_scanning' | 'github_code_search';

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

/**
 * The scheduled runs (leak scan, operation and registrar reconcilers, idempotency purge) each make
 * one activity call; its retries, when absent, are the workflow's SCHEDULED_RETRIES entry.
 */
export interface ScheduledRunInput {
  retry?: RetryTiming;
}

export const SCHEDULED_RETRIES = {
  /** One attempt pages through all results; GitHub's rate limits set the delay (Retry-After). */
  leakScanWorkflow: { initialIntervalMs: 10_000, maximumIntervalMs: 10 * 60_000, maximumAttempts: 10 },
  reconcileOperationsWorkflow: { initialIntervalMs: 5_000, maximumIntervalMs: 500_000, maximumAttempts: 5 },
  /** One attempt pages through the registrar's whole list. */
  registrarReconcileWorkflow: { initialIntervalMs: 10_000, maximumIntervalMs: 10 * 60_000, maximumAttempts: 10 },
  purgeIdempotencyKeysWorkflow: { initialIntervalMs: 5_000, maximumIntervalMs: 500_000, maximumAttempts: 5 },
  purgeEventsWorkflow: { initialIntervalMs: 5_000, maximumIntervalMs: 500_000, maximumAttempts: 5 },
} as const satisfies Record<string, RetryTiming>;

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

export interface ReconcileOperationsInput extends ScheduledRunInput {
  /** An operation younger than this may still be having its workflow started by the api: left alone. */
  graceMs: number;
  /** Older than this, a workflow is no longer started (the customer has moved on): abandoned instead. */
  maxStartAgeMs: number;
  /** At most this many operations a run; the next run takes the rest. */
  limit: number;
}

/** What one reconciler run did, by operation id: the schedule's workflow result, read in the Temporal UI. */
export interface ReconcileOperationsSummary {
  examined: number;
  /** A workflow exists for it (it has not claimed the operation yet): nothing to do. */
  hasWorkflow: string[];
  started: string[];
  abandoned: string[];
  /** Reservations still held for failed or cancelled operations, released now. */
  released: string[];
}

export interface RegistrarReconcileInput extends ScheduledRunInput {
  /** DNSimple allows up to 100 a page. */
  perPage?: number;
  /** A bound on the pages read, so a broken pagination cannot loop forever. */
  maxPages?: number;
}

/** How the registrar account and our live domains can disagree (src/services/domains/registrarDrift.ts). */
export type DriftKind = 'expiry_mismatch' | 'auto_renew_on' | 'unknown_upstream' | 'missing_upstream';

export interface RegistrarReconcileSummary {
  pages: number;
  upstreamDomains: number;
  ourDomains: number;
  /** Drifts found, by kind (each also counted in `registrar_drift_total`). */
  drift: Record<DriftKind, number>;
  /** The drifts themselves, by name, for the run's result in the Temporal UI. */
  names: Partial<Record<DriftKind, string[]>>;
}

/** How a webhook delivery is paced: every duration its workflow waits, so tests run 3 days in seconds. */
export interface WebhookDeliveryTiming {
  /** One POST, connection to last byte (10 s). */
  timeoutMs: number;
  /** The wait after the first failed attempt; doubled after each further one, up to `maxRetryIntervalMs`. */
  initialRetryMs: number;
  maxRetryIntervalMs: number;
  /** No attempt is made later than this after the first (3 days). */
  retryForMs: number;
  /** An endpoint whose every attempt has failed for this long is disabled (5 days). */
  disableAfterMs: number;
}

export interface DeliverWebhookInput {
  endpointId: string;
  eventId: string;
  livemode: boolean;
  timing: WebhookDeliveryTiming;
  /** One attempt, no retries: `POST …/deliveries/{delivery_id}/retry`. */
  once?: boolean;
}

export interface DeliverWebhookResult {
  /** `endpoint_gone`: deleted, or disabled before the attempt; `event_gone`: purged (30 days). */
  outcome: 'delivered' | 'failed' | 'gave_up' | 'endpoint_disabled' | 'endpoint_gone' | 'event_gone';
  attempts: number;
}

export interface DispatchEventsInput {
  /** How long one run of the dispatching activity goes on before the workflow continues as new. */
  runForMs: number;
  /** How often the outbox is read when no notification arrives (a safety net for lost notifications). */
  pollMs: number;
  /** Events handled per transaction. */
  batch: number;
  timing: WebhookDeliveryTiming;
}

/**
 * How long each part of a domain's life lasts (docs/api-guide.md, Operations and workflows). Inputs of the lifecycle
 * workflow, so a test can run a whole life short; test clocks move the lifecycle's "now" instead.
 */
export interface DomainLifecycleDurations {
  /** Before expiry: the first auto-renewal attempt. */
  autoRenewLeadMs: number;
  /** Between auto-renewal attempts that failed (short funds), until the domain expires. */
  autoRenewRetryMs: number;
  /** Before expiry: the "expiring" notices of a domain without auto-renew, e.g. 30, 7 and 1 days. */
  noticeLeadsMs: number[];
  /** After expiry: how long renewal still works before the domain is deleted. */
  graceMs: number;
  /** While a renewal runs, how often its end is looked for if no signal came (a safety net). */
  renewalRecheckMs: number;
}

/** The lifecycle's activities, by what they call. */
export interface DomainLifecycleRetries {
  /** Reading and changing the domain, recording notices, starting an auto-renewal. */
  store: RetryTiming;
  /** Until the SMTP server accepts the notice. */
  mail: RetryTiming;
  /** Deleting a deleted live domain's zone at the DNS provider, which may be down for a while. */
  dnsZone: RetryTiming;
}

export const DOMAIN_LIFECYCLE_RETRIES: DomainLifecycleRetries = {
  store: OWN_STORE_RETRY,
  mail: { initialIntervalMs: 1_000, maximumIntervalMs: 600_000 },
  dnsZone: { initialIntervalMs: 5_000, maximumIntervalMs: 3_600_000 },
};

export interface DomainLifecycleInput {
  domainId: string;
  orgId: string;
  livemode: boolean;
  name: string;
  durations: DomainLifecycleDurations;
  /** Absent: DOMAIN_LIFECYCLE_RETRIES. */
  retries?: Partial<DomainLifecycleRetries>;
  /**
   * The term being watched and the lifecycle time (ms since the epoch, test clock included) up to
   * which its steps are handled; carried across continue-as-new. Absent: the domain's current term, from now.
   */
  cycle?: { expiresAt: string; handledUntil: number };
  /**
   * Where a new term's handling starts (lifecycle time): steps due before it fell before the
   * lifecycle watched the domain. Set by whoever starts the workflow, so a test clock moved before
   * the first run still brings every step of the days it skipped. Absent: the run's own "now".
   */
  watchFrom?: number;
}

export interface DomainLifecycleResult {
  /** `deleted` at the end of the grace period; `gone`: the domain left our care another way (failed, missing). */
  outcome: 'deleted' | 'gone';
}

/** What the lifecycle reads of its domain before each step (src/services/domains/lifecycle/). */
export interface DomainLifecycleState {
  status: 'registering' | 'active' | 'transfer_pending' | 'expired' | 'failed' | 'deleted';
  expiresAt: string | null;
  autoRenew: boolean;
  clockOffsetDays: number;
  /** A renewal (by hand or automatic) has not finished: nothing else happens to the domain meanwhile. */
  renewalOpen: boolean;
}

/**
 * What a lifecycle step did: `done`, `skipped` (no longer applies: renewed meanwhile, auto-renew
 * turned off), or `busy` (a renewal runs: try again once it ends). `noticeId` names the notice to mail.
 */
export interface LifecycleStepOutcome {
  outcome: 'done' | 'skipped' | 'busy';
  noticeId: string | null;
  detail?: string;
}

/** A step's outcome and the domain as the step left it, so the workflow need not read it again. */
export interface LifecycleStepResult extends LifecycleStepOutcome {
  state: DomainLifecycleState | null;
}

/** The domain's test clock moved (POST …/domains/{domain}/test-clock): its lifecycle looks again at once. */
export const testClockAdvancedSignal = defineSignal('testClockAdvanced');

/** The domain changed (renewed, a renewal failed, auto-renew turned on or off): its lifecycle looks again. */
export const domainChangedSignal = defineSignal<[{ reason: string }]>('domainChanged');

/** Where a lifecycle run stands, as the `lifecycleProgress` query answers it. */
export interface DomainLifecycleProgress {
  /** The domain's test clock as the run last read it from the database; null before its first read. */
  clockOffsetDays: number | null;
  /**
   * Waiting for a signal or for its next step's time, with no step due, no renewal running and no
   * signal unread: everything the clock it read brought has been done, notices mailed included.
   */
  idle: boolean;
}

/** Lets an operator or a test see that the lifecycle has finished with what it was told (queries add nothing to history). */
export const lifecycleProgressQuery = defineQuery<DomainLifecycleProgress>('lifecycleProgress');

/**
 * The signature of every workflow the worker runs, by its registered name (the exported function's
 * name; workflows/index.ts checks that each implementation matches). Starts go through
 * `startWorkflow` (src/temporal/client.ts), so the name and the arguments are both type-checked.
 */
export interface Workflows {
  registerDomainWorkflow(input: RegisterDomainInput): Promise<RegistrationResult>;
  renewDomainWorkflow(input: RenewDomainInput): Promise<RegistrationResult>;
  transferDomainWorkflow(input: TransferDomainInput): Promise<TransferResult>;
  syncRegistrarContactWorkflow(input: SyncRegistrarContactInput): Promise<{ status: string }>;
  revokeLeakedKeyWorkflow(input: LeakedKeyInput): Promise<LeakedKeyResult>;
  leakScanWorkflow(input?: LeakScanInput): Promise<LeakScanSummary>;
  reconcileOperationsWorkflow(input: ReconcileOperationsInput): Promise<ReconcileOperationsSummary>;
  registrarReconcileWorkflow(input?: RegistrarReconcileInput): Promise<RegistrarReconcileSummary>;
  purgeIdempotencyKeysWorkflow(input?: ScheduledRunInput): Promise<{ purged: number }>;
  deliverWebhookWorkflow(input: DeliverWebhookInput): Promise<DeliverWebhookResult>;
  dispatchEventsWorkflow(input: DispatchEventsInput): Promise<never>;
  purgeEventsWorkflow(input?: ScheduledRunInput): Promise<{ purged: number }>;
  domainLifecycleWorkflow(input: DomainLifecycleInput): Promise<DomainLifecycleResult>;
}

/** The workflow each operation type runs. */
export const OPERATION_WORKFLOWS = {
  'domain.register': 'registerDomainWorkflow',
  'domain.transfer': 'transferDomainWorkflow',
  'domain.renew': 'renewDomainWorkflow',
} as const satisfies { [T in keyof OperationWorkflowInputs]: keyof Workflows };
