/**
 * The leaks feature's public face: what other features, the flows and the wiring may use.
 * Everything else in this folder is its own (docs/architecture.md, "The house").
 */
export { createLeakActivities } from './activities.js';
export type { LeakedKeyInput, LeakedKeyResult, LeakScanInput, LeakScanSummary } from './leaks.contract.js';
export { secretScanningRoutes } from './secretScanning.routes.js';
