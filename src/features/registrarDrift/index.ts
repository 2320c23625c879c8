/**
 * The registrarDrift feature's public face: what other features, the flows and the wiring may use.
 * Everything else in this folder is its own (docs/architecture.md, "The house").
 */
export { createRegistrarDriftActivities } from './activities.js';
export type { RegistrarReconcileInput, RegistrarReconcileSummary } from './registrarDrift.contract.js';
