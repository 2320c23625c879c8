import type { AppDeps } from './deps.js';
import type { RouteSpec } from './http/route.js';
import { healthRoutes } from './features/health/health.routes.js';
import { docsRoutes } from './features/docs/docs.routes.js';
import { devIdentityRoutes } from './auth/dev/jwks.routes.js';
import { meRoutes } from './features/orgs/me.routes.js';
import { deviceSignInRoutes } from './features/deviceSignIn/deviceSignIn.routes.js';
import { apiKeyRoutes } from './features/apiKeys/apiKeys.routes.js';
import { organizationRoutes } from './features/orgs/orgs.routes.js';
import { memberRoutes } from './features/orgs/members.routes.js';
import { availabilityRoutes } from './features/domains/availability.routes.js';
import { domainRoutes } from './features/domains/domains.routes.js';
import { registerDomainRoutes } from './flows/registerDomain/registerDomain.routes.js';
import { transferDomainRoutes } from './flows/transferDomain/transferDomain.routes.js';
import { renewDomainRoutes } from './flows/renewDomain/renewDomain.routes.js';
import { testClockRoutes } from './features/lifecycle/testClock.routes.js';
import { lifecycleWatcher } from './features/lifecycle/watch.js';
import { cancelDomainMoveRoutes, domainMoveRoutes } from './features/domainMoves/domainMoves.routes.js';
import { acceptMoveRoutes } from './flows/moveDomain/acceptMove.routes.js';
import { cancelMovesOfDepartingProposer } from './features/domainMoves/proposerMoves.js';
import { operationRoutes } from './features/domains/operations.routes.js';
import { billingRoutes } from './features/billing/billing.routes.js';
import { stripeWebhookRoutes } from './features/billing/stripeWebhook.routes.js';
import { contactRoutes } from './features/contacts/contacts.routes.js';
import { secretScanningRoutes } from './features/leaks/secretScanning.routes.js';
import { dnsRecordRoutes } from './features/dns/records.routes.js';
import { dnssecRoutes } from './features/dns/dnssec.routes.js';
import { zoneFileRoutes } from './features/dns/zone.routes.js';
import { httpreqRoutes } from './features/acmeHttpreq/httpreq.routes.js';
import { acmeDnsRoutes } from './features/acmeDns/acmeDns.routes.js';
import { eventRoutes } from './features/webhooks/events.routes.js';
import { webhookEndpointRoutes } from './features/webhooks/endpoints.routes.js';
import { auditLogRoutes } from './features/audit/auditLog.routes.js';

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
