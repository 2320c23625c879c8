/**
 * The apiKeys feature's public face: what other features, the flows and the wiring may use.
 * Everything else in this folder is its own (docs/architecture.md, "The house").
 */
export { apiKeyRoutes } from './apiKeys.routes.js';
export { revokeApiKey } from './revokeApiKey.js';
