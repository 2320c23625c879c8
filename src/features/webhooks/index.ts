/**
 * The webhooks feature's public face: what other features, the flows and the wiring may use.
 * Everything else in this folder is its own (docs/architecture.md, "The house").
 */
export { createWebhookActivities } from './activities.js';
export { emitEvent } from './emitEvent.js';
export { webhookEndpointRoutes } from './endpoints.routes.js';
export { refusedRange } from './addressPolicy.js';
export { admitRequestEvents, EVENT_BUDGET_ERRORS, type EventBudgetDeps } from './eventBudget.js';
export { DnsRecordSchema, type DnsZoneChangeSchema, RevokedApiKeySchema, ZONE_CHANGE_RECORDS_INLINE } from './eventPayloads.js';
export { EventStreamHub } from './eventStreamHub.js';
export { countUndispatchedEvents, type EventType } from './events.repository.js';
export { eventRoutes } from './events.routes.js';
export type { Resolver } from './sender.js';
export { startEventDispatcher } from './startDispatcher.js';
export type { DeliverWebhookInput, DeliverWebhookResult, DispatchEventsInput } from './webhooks.contract.js';
