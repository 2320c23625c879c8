import type { PlatformDeps } from '../platformDeps.js';
import { authenticate } from '../auth/authenticate.js';
import { refuseRecordRestrictedKeys, requireOrgMember, requirePathDomainAllowed, requireScope } from '../auth/authorize.js';
import { requestPrincipal } from '../auth/requestPrincipal.js';
import { jsonBody, textBody } from './jsonBody.js';
import { koaPath, rateLimitGroupOf, type RequestSchemas, type RouteInput, type RouteSpec } from './route.js';
import { refuseUnsafePath, validate, type InputState } from './validate.js';
import { idempotency } from './idempotency.js';
import { idempotencyAtCommit } from './idempotencyAtCommit.js';
import { rateLimitMiddleware } from './rateLimit.js';
import { consumeAddressPool } from '../rateLimit/addressLimits.js';
import type { AppContext } from './context.js';
import type { Principal } from '../auth/principal.js';
import { RecordedKeyOrganizations } from '../auth/recordedKeyOrganizations.js';
import { RouteTable, type Layer } from './routeTable.js';

const NO_INPUT = { path: undefined, query: undefined, header: undefined, body: undefined };

/**
 * The handler's input: what validation parsed, the request id, and the caller on routes with a token.
 * Written out rather than spread: on Node 20 spreading `parsed` cost microseconds a request (docs/bench.md).
 */
function handlerInput(ctx: AppContext, authenticated: boolean): RouteInput<RequestSchemas> & { principal?: Principal } {
  const { path, query, header, body } = (ctx.state as InputState).input ?? NO_INPUT;
  const { requestId } = ctx.state;
  return authenticated ? { path, query, header, body, requestId, principal: requestPrincipal(ctx.state) } : { path, query, header, body, requestId };
}

export function isOrgPath(path: string): boolean {
  return path.startsWith('/api/v1/orgs/{org_oid}');
}

/** Layers a benchmark may switch off to measure what they cost (bench/servers/layers.ts); tests run with all of them. */
export interface RouterLayers {
  rateLimit: boolean;
  idempotency: boolean;
}

/**
 * The middleware chain of one route, in order: who, how often, what scope (and, for a key restricted
 * to some DNS records, whether the route acts on records), which org, which domain, body,
 * request signature, idempotency, validation, handler. Every route gets the layers its declaration implies.
 */
function routeChain(
  route: RouteSpec,
  deps: PlatformDeps,
  layers: RouterLayers,
  shared: { limit: ReturnType<typeof rateLimitMiddleware>; recordedKeyOrganizations: RecordedKeyOrganizations },
): Layer[] {
  const { limit } = shared;
  const chain: Layer[] = [];
  const authenticated = route.scope !== 'public';
  if (!authenticated && layers.rateLimit && !route.countsOwnRequests) {
    // Nothing else limits a route without a token: count it per client address before any work.
    chain.push(async (ctx, next) => {
      await consumeAddressPool(deps, ctx, 'public');
      await next();
    });
  }
  if (authenticated) chain.push(authenticate(deps, { basic: route.basicAuth === true }));
  // Before anything reads a path id (the limiter's plan, membership): NUL never reaches a query.
  chain.push(refuseUnsafePath());
  if (authenticated && layers.rateLimit) chain.push(limit(rateLimitGroupOf(route)));
  if (route.scope !== 'public' && route.scope !== 'any') chain.push(requireScope(route.scope));
  if (route.scope !== 'public' && route.scope !== 'any' && !route.actsOnRecords && !route.filtersByKeyRestrictions) chain.push(refuseRecordRestrictedKeys());
  if (isOrgPath(route.path)) chain.push(requireOrgMember(deps, route.roles, shared.recordedKeyOrganizations));
  if (authenticated && route.path.includes('{domain}')) chain.push(requirePathDomainAllowed({ actsOnRecords: route.actsOnRecords === true }));
  const { verifyRequest, verifyHeaders, holdsSlot } = route;
  if (holdsSlot) {
    chain.push(async (ctx, next) => {
      const release = holdsSlot(ctx);
      try {
        await next();
      } finally {
        release();
      }
    });
  }
  if (verifyHeaders) {
    chain.push(async (ctx, next) => {
      await verifyHeaders(ctx);
      await next();
    });
  }
  // A signed body is verified on its raw bytes before it is parsed.
  // (Every ctx on this chain is a router context; jsonBody is typed for plain Koa.)
  if (route.request?.body && route.textBody) chain.push(textBody(route.textBody));
  else if (route.request?.body) chain.push(jsonBody(route.bodyLimitBytes, verifyRequest && ((ctx) => verifyRequest(ctx as AppContext))));
  if (verifyRequest && !route.request?.body) {
    chain.push(async (ctx, next) => {
      await verifyRequest(ctx);
      await next();
    });
  }
  if (authenticated && layers.idempotency && route.method !== 'get') {
    chain.push(route.answersInTransaction ? idempotencyAtCommit(deps) : idempotency(deps));
  }
  if (route.request) chain.push(validate(route.request));
  chain.push(async (ctx) => {
    await route.handler(ctx, handlerInput(ctx, authenticated));
  });
  return chain;
}

export function buildRouter(
  routes: RouteSpec[],
  deps: PlatformDeps,
  layers: RouterLayers = { rateLimit: true, idempotency: true },
): RouteTable {
  const table = new RouteTable();
  const shared = { limit: rateLimitMiddleware(deps), recordedKeyOrganizations: new RecordedKeyOrganizations() };
  for (const route of routes) {
    table.add(route.method, koaPath(route.path), routeChain(route, deps, layers, shared));
  }
  return table;
}
