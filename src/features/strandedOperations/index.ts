/**
 * The strandedOperations feature's public face: what other features, the flows and the wiring may use.
 * Everything else in this folder is its own (docs/architecture.md, "The house").
 */
export { createStrandedOperationActivities } from './activities.js';
export type { ReconcileOperationsInput, ReconcileOperationsSummary } from './strandedOperations.contract.js';
