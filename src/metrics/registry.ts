import { Counter, Registry, collectDefaultMetrics } from 'prom-client';
import type { RegistrarAdapter } from '../registrar/errors.js';
import type { DriftKind } from '../services/domains/registrarDrift.js';

/** The statuses with which a registrar refuses our account (credentials, billing, scope). */
export const ACCOUNT_ERROR_STATUSES = [401, 402, 403] as const;
export type AccountErrorStatus = (typeof ACCOUNT_ERROR_STATUSES)[number];

// A record, so a new kind of drift fails the typecheck until it is listed here.
const DRIFT_KINDS = Object.keys({ expiry_mismatch: 0, auto_renew_on: 0, unknown_upstream: 0, missing_upstream: 0 } satisfies Record<DriftKind, 0>);
const ADAPTERS = Object.keys({ dnsimple: 0 } satisfies Record<RegistrarAdapter, 0>) as RegistrarAdapter[];

/**
 * The process's Prometheus metrics. Every label takes its value from a closed list (never an id, a
 * domain name or a key), so the number of series stays bounded whatever customers do.
 */
export interface Metrics {
  registry: Registry;
  /** The registrar refused our account: the operator must fix credentials, scopes or an invoice. */
  registrarAccountErrors: Counter<'adapter' | 'status'>;
  /** Differences found between our live domains and the registrar account's list, by kind. */
  registrarDrift: Counter<'kind'>;
}

/** One registry per process (or per test app), so scrapes see only this process's counts. */
export function createMetrics(): Metrics {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });
  const registrarAccountErrors = new Counter({
    name: 'registrar_account_errors_total',
    help: 'Registrar answers refusing our account (401 credentials, 402 unpaid invoice, 403 scope), by adapter and upstream status',
    labelNames: ['adapter', 'status'] as const,
    registers: [registry],
  });
  const registrarDrift = new Counter({
    name: 'registrar_drift_total',
    help: 'Drifts between our live domains and the registrar account found by reconciliation, by kind',
    labelNames: ['kind'] as const,
    registers: [registry],
  });
  // Series exist at 0 from the start, so rate() and absent-series alerts work before the first event.
  for (const adapter of ADAPTERS) {
    for (const status of ACCOUNT_ERROR_STATUSES) registrarAccountErrors.inc({ adapter, status: String(status) }, 0);
  }
  for (const kind of DRIFT_KINDS) registrarDrift.inc({ kind }, 0);
  return { registry, registrarAccountErrors, registrarDrift };
}
