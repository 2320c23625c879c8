import Router from '@koa/router';
import type { RouterMiddleware } from '@koa/router';
import type { AppDeps } from '../deps.js';
import { authenticate } from '../auth/authenticate.js';
import { requireOrgMember, requireScope } from '../auth/authorize.js';
import type { AppState } from './context.js';
import { jsonBody } from './jsonBody.js';
import { koaPath, type RouteSpec } from './route.js';
import { validate, type InputState } from './validate.js';

const NO_INPUT = { path: undefined, query: undefined, header: undefined, body: undefined };

export function isOrgPath(path: string): boolean {
  return path.startsWith('/api/v1/orgs/{org_oid}');
}

/** The middleware chain of one route, in order: who, what scope, which org, body, validation, handler. */
function routeChain(route: RouteSpec, deps: AppDeps): RouterMiddleware<AppState>[] {
  const chain: RouterMiddleware<AppState>[] = [];
  if (route.scope !== 'public') chain.push(authenticate(deps));
  if (route.scope !== 'public' && route.scope !== 'any') chain.push(requireScope(route.scope));
  if (isOrgPath(route.path)) chain.push(requireOrgMember(deps.db, route.roles));
  if (route.request?.body) chain.push(jsonBody());
  if (route.request) chain.push(validate(route.request));
  chain.push(async (ctx) => {
    await route.handler(ctx, (ctx.state as InputState).input ?? NO_INPUT);
  });
  return chain;
}

export function buildRouter(routes: RouteSpec[], deps: AppDeps): Router<AppState> {
  const router = new Router<AppState>();
  for (const route of routes) {
    router.register(koaPath(route.path), [route.method.toUpperCase()], routeChain(route, deps));
  }
  return router;
}
