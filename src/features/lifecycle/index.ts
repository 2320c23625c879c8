/**
 * The lifecycle feature's public face: what other features, the flows and the wiring may use.
 * Everything else in this folder is its own (docs/architecture.md, "The house").
 */
export { type AutoRenewStep, createLifecycleActivities, type StepRef, withLifecycleState } from './activities.js';
export { backfillLifecycles } from './backfill.js';
export { lifecycleNowOf } from './clock.js';
export type { DomainLifecycleInput, DomainLifecycleResult, LifecycleStepOutcome, LifecycleStepResult } from './domainLifecycle.contract.js';
export { recordNotice } from './notices.js';
export { testClockRoutes } from './testClock.routes.js';
export { lifecycleWatcher, watchDomain } from './watch.js';
