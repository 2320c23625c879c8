/**
 * The acmeHttpreq feature's public face: what other features, the flows and the wiring may use.
 * Everything else in this folder is its own (docs/architecture.md, "The house").
 */
export { httpreqRoutes } from './httpreq.routes.js';
export { ACME_DIGEST, ACME_DIGEST_HINT } from './schemas.js';
