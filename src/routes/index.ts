import type { AppDeps } from '../deps.js';
import type { RouteSpec } from '../http/route.js';
import { healthRoutes } from './health/health.js';
import { docsRoutes } from './docs/docs.js';
import { devIdentityRoutes } from './dev/jwks.js';

/** Every route the api serves; the OpenAPI document is built from this same list. */
export function buildRoutes(deps: AppDeps, extraRoutes: RouteSpec[] = []): RouteSpec[] {
  const routes: RouteSpec[] = [
    ...healthRoutes(deps),
    ...(deps.devIdentity ? devIdentityRoutes(deps.devIdentity) : []),
    ...extraRoutes,
  ];
  routes.push(...docsRoutes(() => routes));
  return routes;
}
