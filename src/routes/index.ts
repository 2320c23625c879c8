import type { AppDeps } from '../deps.js';
import type { RouteSpec } from '../http/route.js';
import { healthRoutes } from './health/health.js';
import { docsRoutes } from './docs/docs.js';
import { devIdentityRoutes } from './dev/jwks.js';
import { meRoutes } from './me/me.js';
import { apiKeyRoutes } from './apiKeys/apiKeys.js';
import { organizationRoutes } from './orgs/orgs.js';
import { memberRoutes } from './orgs/members.js';
import { availabilityRoutes } from './domains/availability.js';
import { domainRoutes } from './domains/domains.js';
import { operationRoutes } from './domains/operations.js';
import { billingRoutes } from './billing/billing.js';
import { stripeWebhookRoutes } from './billing/stripeWebhook.js';
import { contactRoutes } from './contacts/contacts.js';
import { secretScanningRoutes } from './secretScanning/github.js';
import { dnsRecordRoutes } from './dns/records.js';
import { eventRoutes } from './webhooks/events.js';
import { webhookEndpointRoutes } from './webhooks/endpoints.js';

/** Every route the api serves; the OpenAPI document is built from this same list. */
export function buildRoutes(deps: AppDeps, extraRoutes: RouteSpec[] = []): RouteSpec[] {
  const routes: RouteSpec[] = [
    ...healthRoutes(deps),
    ...(deps.devIdentity ? devIdentityRoutes(deps.devIdentity) : []),
    ...meRoutes(deps),
    ...apiKeyRoutes(deps),
    ...organizationRoutes(deps),
    ...memberRoutes(deps),
    ...availabilityRoutes(deps),
    ...domainRoutes(deps),
    ...operationRoutes(deps),
    ...billingRoutes(deps),
    ...stripeWebhookRoutes(deps),
    ...contactRoutes(deps),
    ...secretScanningRoutes(deps),
    ...dnsRecordRoutes(deps),
    ...eventRoutes(deps),
    ...webhookEndpointRoutes(deps),
    ...extraRoutes,
  ];
  routes.push(...docsRoutes(() => routes));
  return routes;
}
