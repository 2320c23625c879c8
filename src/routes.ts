import type { AppDeps } from './deps.js';
import type { RouteSpec } from './http/route.js';
import { healthRoutes } from './features/health/index.js';
import { docsRoutes } from './features/docs/index.js';
import { devIdentityRoutes } from './auth/dev/jwks.routes.js';
import { meRoutes, organizationRoutes, memberRoutes } from './features/orgs/index.js';
import { deviceSignInRoutes } from './features/deviceSignIn/index.js';
import { apiKeyRoutes } from './features/apiKeys/index.js';
import { availabilityRoutes, domainRoutes, operationRoutes } from './features/domains/index.js';
import { registerDomainRoutes } from './flows/registerDomain/registerDomain.routes.js';
import { transferDomainRoutes } from './flows/transferDomain/transferDomain.routes.js';
import { renewDomainRoutes } from './flows/renewDomain/renewDomain.routes.js';
import { testClockRoutes, lifecycleWatcher } from './features/lifecycle/index.js';
import { cancelDomainMoveRoutes, domainMoveRoutes, cancelMovesOfDepartingProposer } from './features/domainMoves/index.js';
import { acceptMoveRoutes } from './flows/moveDomain/acceptMove.routes.js';
import { billingRoutes, stripeWebhookRoutes } from './features/billing/index.js';
import { contactRoutes } from './features/contacts/index.js';
import { secretScanningRoutes } from './features/leaks/index.js';
import { dnsRecordRoutes, dnssecRoutes, zoneFileRoutes, zoneTransferRoutes } from './features/dns/index.js';
import { httpreqRoutes } from './features/acmeHttpreq/index.js';
import { emailForwardRoutes } from './features/emailForwards/index.js';
import { acmeDnsRoutes } from './features/acmeDns/index.js';
import { eventRoutes, webhookEndpointRoutes } from './features/webhooks/index.js';
import { auditLogRoutes } from './features/audit/index.js';

/** Every route the api serves; the OpenAPI document is built from this same list. */
export function buildRoutes(deps: AppDeps, extraRoutes: RouteSpec[] = []): RouteSpec[] {
  const routes: RouteSpec[] = [
    ...healthRoutes(deps),
    ...(deps.devIdentity ? devIdentityRoutes(deps.devIdentity) : []),
    ...deviceSignInRoutes(deps),
    ...meRoutes(deps),
    ...apiKeyRoutes(deps),
    ...organizationRoutes(deps),
    ...memberRoutes(deps, cancelMovesOfDepartingProposer),
    ...availabilityRoutes(deps),
    // The domain routes keep the order they had as one list: it is the OpenAPI document's path order.
    ...registerDomainRoutes(deps),
    ...transferDomainRoutes(deps),
    ...renewDomainRoutes(deps),
    ...domainRoutes(deps, lifecycleWatcher(deps)),
    ...testClockRoutes(deps),
    ...domainMoveRoutes(deps),
    // Between reading a move and cancelling one, as the OpenAPI document lists them.
    ...acceptMoveRoutes(deps),
    ...cancelDomainMoveRoutes(deps),
    ...operationRoutes(deps),
    ...billingRoutes(deps),
    ...stripeWebhookRoutes(deps),
    ...contactRoutes(deps),
    ...secretScanningRoutes(deps),
    ...dnsRecordRoutes(deps),
    ...dnssecRoutes(deps),
    ...zoneFileRoutes(deps),
    ...emailForwardRoutes(deps),
    ...zoneTransferRoutes(deps),
    ...httpreqRoutes(deps),
    ...acmeDnsRoutes(deps),
    ...eventRoutes(deps),
    ...webhookEndpointRoutes(deps),
    ...auditLogRoutes(deps),
    ...extraRoutes,
  ];
  routes.push(...docsRoutes(() => routes));
  return routes;
}
