/**
 * The domains feature's public face: what other features, the flows and the wiring may use.
 * Everything else in this folder is its own (docs/architecture.md, "The house").
 */
export { answerAccepted } from './accepted.js';
export { availabilityRoutes } from './availability.routes.js';
export { AvailabilityService } from './availability.js';
export { abandonOperation, answerExisting, beginOperation, type BeginOperationProps, existingOperation, type OperationQuote, quoteOperation } from './beginOperation.js';
export type { DomainWatcher } from './domainSettings.js';
export { activateDomain, changeDomainStatus } from './domainStatus.js';
export { advanceDomainClock, type Domain, type DomainStatus, findDomainById, findDomainOfOrg, findDomainOfOrgAmong, findFirstActiveDomainNamed, findLatestDomainOfOrg, linkDomainContacts, listLiveDomainsToReconcile, listWatchedDomains, lockDomain, unlinkDomainContacts, updateDomainSettings } from './domains.repository.js';
export { domainRoutes } from './domains.routes.js';
export { DryRunSchema, presentDryRun } from './dryRun.presenter.js';
export { activeDomainNamed, domainIn, domainNamed, RENEWABLE } from './lookup.js';
export { OperationSchema, presentDomain } from './operation.presenter.js';
export { createOperationActivities, type OperationActivities } from './operationActivities.js';
export { endOperation } from './operationEvents.js';
export { operationRequestHash, operationWorkflowId, requester, startOperationWorkflow } from './operationWorkflows.js';
export type { OperationWorkflowInputs, RegisterDomainInput, RegistrarStep, RegistrationResult, RenewDomainInput, TransferDomainInput, TransferResult } from './operations.contract.js';
export { countUnfinishedOperations, findOpenRenewal, findOperation, findOperationById, insertOperation, listStalePendingOperations, type Operation, WORKFLOW_INPUT_PURPOSE } from './operations.repository.js';
export { operationRoutes } from './operations.routes.js';
export { requireRegistrantState } from './registrantChecks.js';
export { findRegistrationFacts, type RegistrationFacts } from './registration.repository.js';
export { RegisterDomainBody, RenewDomainBody, RenewedSchema, TestClockBody, TestClockSchema, TransferDomainBody } from './schemas.js';
export type { DisableDnssecInput, DnssecOperationInput, DnssecRetries, EnableDnssecInput } from './dnssecOperations.contract.js';
