import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';
import type { RegistrarAdapter } from '../registrar/errors.js';
import { ADDRESS_LIMITS, RATE_LIMIT_GROUPS } from '../rateLimit/groups.js';

/** The statuses with which a registrar refuses our account (credentials, billing, scope). */
export const ACCOUNT_ERROR_STATUSES = [401, 402, 403] as const;
export type AccountErrorStatus = (typeof ACCOUNT_ERROR_STATUSES)[number];

/**
 * Every label value a series may carry, per label: closed lists, never an id, a domain name or a key,
 * so the number of series stays bounded whatever customers do. Records, so a new member of a union
 * fails the typecheck until it is listed here. `test/metrics/metrics.test.ts` checks a real scrape
 * against these lists.
 */
const keysOf = <T extends string>(record: Record<T, 0>): T[] => Object.keys(record) as T[];
// Shared plumbing never imports a feature (docs/architecture.md): the kinds of registrar drift and
// where a leaked key was reported from are declared here, and the features' contracts take them from here.
/** How the registrar account and our live domains can disagree (src/features/registrarDrift/registrarDrift.ts). */
export type DriftKind = 'expiry_mismatch' | 'auto_renew_on' | 'unknown_upstream' | 'missing_upstream';
/** Where a leaked key was reported from. */
export type LeakSource = 'github_secret_scanning' | 'github_code_search';
export const DRIFT_KINDS = keysOf<DriftKind>({ expiry_mismatch: 0, auto_renew_on: 0, unknown_upstream: 0, missing_upstream: 0 });
const ACCOUNT_ADAPTERS = keysOf<RegistrarAdapter>({ dnsimple: 0 });
// Ledger and operation labels are declared here rather than imported from their repositories (which
// count into these metrics, so an import would be a circle); a repository passing a value outside
// them fails the typecheck at its call of src/metrics/record.ts.
export type LedgerFlow = 'top_up' | 'reservation' | 'capture' | 'release';
export type OperationTypeLabel = 'domain.register' | 'domain.transfer' | 'domain.renew' | 'dnssec.enable' | 'dnssec.disable';
export type FinalOperationStatus = 'succeeded' | 'failed' | 'cancelled';
export const LEDGER_FLOWS = keysOf<LedgerFlow>({ top_up: 0, reservation: 0, capture: 0, release: 0 });
export const OPERATION_TYPES = keysOf<OperationTypeLabel>({ 'domain.register': 0, 'domain.transfer': 0, 'domain.renew': 0, 'dnssec.enable': 0, 'dnssec.disable': 0 });
export const FINAL_OPERATION_STATUSES = keysOf<FinalOperationStatus>({ succeeded: 0, failed: 0, cancelled: 0 });
export const LEAK_SOURCES = keysOf<LeakSource>({ github_secret_scanning: 0, github_code_search: 0 });
export const RATE_LIMIT_POOLS = ['key', 'user', 'address'] as const;
export const RATE_LIMIT_METRIC_GROUPS = [...Object.keys(RATE_LIMIT_GROUPS), ...Object.keys(ADDRESS_LIMITS)];
export const UPSTREAM_OUTCOMES = ['ok', 'rejected', 'unavailable', 'outcome_unknown', 'error'] as const;
export type UpstreamOutcome = (typeof UPSTREAM_OUTCOMES)[number];
export const MODES = ['live', 'test'] as const;
/** What one webhook delivery attempt came to (src/features/webhooks/deliver.ts AttemptOutcome). */
export const WEBHOOK_ATTEMPT_OUTCOMES = ['delivered', 'failed', 'endpoint_gone', 'endpoint_disabled', 'event_gone'] as const;
export type WebhookAttemptOutcome = (typeof WEBHOOK_ATTEMPT_OUTCOMES)[number];
export type ModeLabel = (typeof MODES)[number];

export const modeLabel = (livemode: boolean): ModeLabel => (livemode ? 'live' : 'test');

/** The process's Prometheus metrics; labels only ever take values from the closed lists above. */
export interface Metrics {
  registry: Registry;
  /** The registrar refused our account: the operator must fix credentials, scopes or an invoice. */
  registrarAccountErrors: Counter<'adapter' | 'status'>;
  /** Differences found between our live domains and the registrar account's list, by kind. */
  registrarDrift: Counter<'kind'>;
  /** Requests answered, by route template (never the raw URL), method and status. */
  httpRequestDuration: Histogram<'route' | 'method' | 'status'>;
  rateLimitDecisions: Counter<'group' | 'pool' | 'outcome'>;
  idempotency: Counter<'outcome'>;
  ledgerEntries: Counter<'flow' | 'mode'>;
  ledgerAmount: Counter<'flow' | 'mode'>;
  operationsFinished: Histogram<'type' | 'status' | 'mode'>;
  /** Registrar and DNS-provider calls: `system` is `registrar` or `dns_provider`. */
  upstreamCallDuration: Histogram<'system' | 'adapter' | 'call' | 'outcome'>;
  leakAlerts: Counter<'source' | 'response'>;
  leakedKeys: Counter<'mode' | 'outcome'>;
  leakScans: Counter;
  leakScanLastSuccess: Gauge;
  /** Webhook delivery attempts by outcome and mode, with the attempt's duration (the POST included). */
  webhookAttempts: Histogram<'outcome' | 'mode'>;
  /** Endpoints disabled after failing for too long (the WebhookEndpointDisabled alert reads it). */
  webhookEndpointsDisabled: Counter<'mode'>;
}

const SECONDS_BUCKETS_HTTP = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30];
const SECONDS_BUCKETS_UPSTREAM = [0.01, 0.05, 0.1, 0.25, 0.5, 1, 2, 5, 10, 30, 60];
// Transfers take days; registrations seconds to minutes.
const SECONDS_BUCKETS_OPERATIONS = [1, 5, 15, 30, 60, 300, 900, 3600, 6 * 3600, 86_400, 3 * 86_400, 7 * 86_400];

/** One registry per call (tests may build their own); processes use `processMetrics()`. */
export function createMetrics(): Metrics {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });
  const registers = [registry];
  const m: Metrics = {
    registry,
    registrarAccountErrors: new Counter({
      name: 'registrar_account_errors_total',
      help: 'Registrar answers refusing our account (401 credentials, 402 unpaid invoice, 403 scope), by adapter and upstream status',
      labelNames: ['adapter', 'status'] as const,
      registers,
    }),
    registrarDrift: new Counter({
      name: 'registrar_drift_total',
      help: 'Drifts between our live domains and the registrar account found by reconciliation, by kind',
      labelNames: ['kind'] as const,
      registers,
    }),
    httpRequestDuration: new Histogram({
      name: 'http_request_duration_seconds',
      help: 'API requests answered, by route template (the declared path), method and status, with their latency',
      labelNames: ['route', 'method', 'status'] as const,
      buckets: SECONDS_BUCKETS_HTTP,
      registers,
    }),
    rateLimitDecisions: new Counter({
      name: 'rate_limit_decisions_total',
      help: 'Rate-limiter decisions by group, pool (key, user ceiling, client address) and outcome (allowed, refused)',
      labelNames: ['group', 'pool', 'outcome'] as const,
      registers,
    }),
    idempotency: new Counter({
      name: 'idempotency_requests_total',
      help: 'Requests with an Idempotency-Key by outcome: first (ran), replayed, conflict_reused (another request or credential), conflict_in_use (still running)',
      labelNames: ['outcome'] as const,
      registers,
    }),
    ledgerEntries: new Counter({
      name: 'ledger_entries_total',
      help: 'Ledger entries written, by flow (top_up, reservation, capture, release) and mode',
      labelNames: ['flow', 'mode'] as const,
      registers,
    }),
    ledgerAmount: new Counter({
      name: 'ledger_amount_minor_units_total',
      help: 'Money moved by ledger entries, in minor units, by flow and mode',
      labelNames: ['flow', 'mode'] as const,
      registers,
    }),
    operationsFinished: new Histogram({
      name: 'operation_duration_seconds',
      help: 'Operations finished, by type and final status (succeeded, failed, cancelled), from creation to the end',
      labelNames: ['type', 'status', 'mode'] as const,
      buckets: SECONDS_BUCKETS_OPERATIONS,
      registers,
    }),
    upstreamCallDuration: new Histogram({
      name: 'upstream_call_duration_seconds',
      help: 'Registrar and DNS-provider calls by system, adapter, call (the port method) and outcome, with their latency',
      labelNames: ['system', 'adapter', 'call', 'outcome'] as const,
      buckets: SECONDS_BUCKETS_UPSTREAM,
      registers,
    }),
    leakAlerts: new Counter({
      name: 'leak_alerts_total',
      help: 'Leaked-key alerts by source and response (started: a leak workflow began; already_handled: it had run before)',
      labelNames: ['source', 'response'] as const,
      registers,
    }),
    leakedKeys: new Counter({
      name: 'leaked_keys_handled_total',
      help: 'Leaked keys handled by the leak workflow, by mode and outcome (revoked, already_revoked, reported)',
      labelNames: ['mode', 'outcome'] as const,
      registers,
    }),
    leakScans: new Counter({
      name: 'leak_scans_completed_total',
      help: 'GitHub code-search leak scans of the leak-scan schedule that went through every page',
      registers,
    }),
    leakScanLastSuccess: new Gauge({
      name: 'leak_scan_last_success_timestamp_seconds',
      help: 'When a leak scan last completed in this process (Unix seconds); 0 before the first',
      registers,
    }),
    webhookAttempts: new Histogram({
      name: 'webhook_delivery_attempt_duration_seconds',
      help: 'Webhook delivery attempts by outcome (delivered, failed, endpoint_gone, endpoint_disabled, event_gone) and mode, with their latency',
      labelNames: ['outcome', 'mode'] as const,
      buckets: SECONDS_BUCKETS_UPSTREAM,
      registers,
    }),
    webhookEndpointsDisabled: new Counter({
      name: 'webhook_endpoints_disabled_total',
      help: 'Webhook endpoints disabled after failing for too long, by mode',
      labelNames: ['mode'] as const,
      registers,
    }),
  };
  // Series exist at 0 from the start, so rate() and absent-series alerts work before the first event.
  for (const adapter of ACCOUNT_ADAPTERS) {
    for (const status of ACCOUNT_ERROR_STATUSES) m.registrarAccountErrors.inc({ adapter, status: String(status) }, 0);
  }
  for (const kind of DRIFT_KINDS) m.registrarDrift.inc({ kind }, 0);
  for (const flow of LEDGER_FLOWS) {
    for (const mode of MODES) {
      m.ledgerEntries.inc({ flow, mode }, 0);
      m.ledgerAmount.inc({ flow, mode }, 0);
    }
  }
  for (const mode of MODES) m.webhookEndpointsDisabled.inc({ mode }, 0);
  m.leakScanLastSuccess.set(0);
  return m;
}

let shared: Metrics | undefined;

/**
 * The process's metrics: what `/metrics` serves and what the ledger, the repositories and the
 * upstream adapters count into without carrying a dependency through every call.
 */
export function processMetrics(): Metrics {
  shared ??= createMetrics();
  return shared;
}
