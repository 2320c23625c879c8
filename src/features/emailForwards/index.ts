/**
 * The emailForwards feature's public face: what other features, the flows and the wiring may use.
 * Everything else in this folder is its own (docs/architecture.md, "The house").
 */
export { emailForwardRoutes } from './emailForwards.routes.js';
export { createMailMetrics, type MailMetrics } from './mailMetrics.js';
export { startMailPolicy, type MailPolicyServer } from './mailPolicy.js';
export { watchMailLog, type MailLogWatcher } from './mailLog.js';
export { lookupTables, mainCf, masterCf, POSTFIX_FILES, type PostfixConfigProps } from './postfixConfig.js';
