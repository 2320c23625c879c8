import type { DriftKind } from '../../metrics/registry.js';
import type { ScheduledRunInput } from '../../temporal/retries.contract.js';

export type { DriftKind };

export interface RegistrarReconcileInput extends ScheduledRunInput {
  /** DNSimple allows up to 100 a page. */
  perPage?: number;
  /** A bound on the pages read, so a broken pagination cannot loop forever. */
  maxPages?: number;
}

export interface RegistrarReconcileSummary {
  pages: number;
  upstreamDomains: number;
  ourDomains: number;
  /** Drifts found, by kind (each also counted in `registrar_drift_total`). */
  drift: Record<DriftKind, number>;
  /** The drifts themselves, by name, for the run's result in the Temporal UI. */
  names: Partial<Record<DriftKind, string[]>>;
}
