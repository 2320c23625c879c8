export { createClient, type ClientOptions, type CallOptions, type DomainClient, type OperationInput, type OperationResult, type Operations } from './client.js';
export { ApiError, OperationTimeoutError, KNOWN_ERROR_CODES, type ErrorCode, type KnownErrorCode, type FieldError } from './errors.js';
export type { RetryOptions, TransportOptions } from './transport.js';
export type { Operation, WaitOptions } from './waitForOperation.js';
export type { components, operations, paths } from './schema.js';
export { verifyWebhook, WebhookVerificationError, type VerifyOptions, type WebhookEvent, type WebhookHeaders } from './webhooks.js';
export { isDryRun, realAnswer, type DryRun } from './dryRun.js';
export { eventTypes } from './operations.js';
