import { z } from 'zod';
import type { RouteConfig } from '@asteasolutions/zod-to-openapi';
import { rateLimitGroupOf, type RouteSpec } from '../http/route.js';
import { isOrgPath } from '../http/router.js';
import { code, ErrorSchema, NotAuthenticatedSchema } from './errorSchemas.js';
import { errorExample } from './examples.js';

/** A response written out in full (never a `$ref`). */
export type ResponseConfig = Exclude<RouteConfig['responses'][string], { $ref: string }>;

const UnauthenticatedSchema = z.union([ErrorSchema, NotAuthenticatedSchema]);

function errorResponse(status: number, description: string): ResponseConfig {
  const schema = status === 401 ? UnauthenticatedSchema : ErrorSchema;
  return { description, content: { 'application/json': { schema, example: errorExample(status, description) } } };
}

export const RateLimitHeaders = z.object({
  'X-RateLimit-Limit': z.number().int().describe('Per-minute limit of the route’s group, after the plan multiplier'),
  'X-RateLimit-Remaining': z.number().int().describe('Requests left in the current minute window'),
  'X-RateLimit-Reset': z.number().int().describe('Unix time at which the window resets'),
});

/**
 * What each path parameter names. The route looks it up (the shared domain look-up, the operation
 * look-up, …) and an unknown one, or one of another organisation or mode, answers 404; a route
 * whose path has a parameter missing here cannot be documented, so no look-up goes undeclared.
 */
const PATH_RESOURCES: Record<string, string> = {
  domain: 'domain',
  operation_id: 'operation',
  record_id: 'DNS record',
  contact_id: 'contact',
  key_id: 'API key',
  user_id: 'member',
  invitation_id: 'pending invitation for your e-mail address',
  top_up_id: 'top-up',
  event_id: 'event',
  endpoint_id: 'webhook endpoint',
  delivery_id: 'delivery',
  registration_id: 'ACME-DNS registration',
};

/** `{org_oid}` is checked by membership (403 `NOT_ORG_MEMBER`, whether or not it exists), not by a 404. */
const MEMBERSHIP_PARAMETERS = new Set(['org_oid']);

/** The 404 of a route with path look-ups: its own words when it gives them (`errors[404]`), else the derived ones. */
function notFound(route: RouteSpec): string | undefined {
  const names = [...route.path.matchAll(/\{([A-Za-z0-9_]+)\}/g)].map((m) => m[1]!).filter((name) => !MEMBERSHIP_PARAMETERS.has(name));
  if (names.length === 0) return undefined;
  if (route.errors?.[404]) return route.errors[404];
  const unknown = names.filter((name) => !PATH_RESOURCES[name]);
  if (unknown.length > 0) {
    throw new Error(`${route.operationId}: say in src/openapi/statuses.ts (or its errors[404]) what {${unknown.join('}, {')}} looks up`);
  }
  return `No such ${names.map((name) => PATH_RESOURCES[name]).join(', or no such ')} in this organisation and mode (${code('NOT_FOUND')})`;
}

/** What a key restricted to `allowed_records` meets on this route (src/auth/authorize.ts). */
function recordReasons(route: RouteSpec): string[] {
  if (route.scope === 'any' || route.filtersByKeyRestrictions) return [];
  if (!route.actsOnRecords) return [`the API key is restricted to \`allowed_records\`, and this route does not act on DNS records (${code('RECORD_NOT_ALLOWED')})`];
  return [
    `the API key's \`allowed_records\` do not match a record this would change${route.path.includes('{domain}') ? ', or name no record of the domain' : ''} (${code('RECORD_NOT_ALLOWED')})`,
  ];
}

function forbiddenReasons(route: RouteSpec): string[] {
  return [
    ...(route.scope !== 'any' ? [`the key lacks \`${route.scope}\` (${code('INSUFFICIENT_SCOPE')})`] : []),
    ...(isOrgPath(route.path) ? [`the caller is not a member of the organisation, or it does not exist (${code('NOT_ORG_MEMBER')})`] : []),
    ...(route.roles ? [`the caller's role is not ${route.roles.join(' or ')} (${code('FORBIDDEN')})`] : []),
    // An operation is its domain's: polling or cancelling it is refused as the domain's routes are.
    ...(/\{domain\}|\{operation_id\}/.test(route.path) || route.charges ? [`the domain is outside the key’s \`allowed_domains\` (${code('DOMAIN_NOT_ALLOWED')})`] : []),
    ...recordReasons(route),
    `the API key is used from an address outside its \`allowed_ips\` (${code('IP_NOT_ALLOWED')})`,
  ];
}

const RETRY_AFTER = RateLimitHeaders.extend({ 'Retry-After': z.number().int().describe('Seconds to wait') });
const IN_USE_RETRY_AFTER = z.object({
  'Retry-After': z.number().int().optional().describe(`With ${code('IDEMPOTENCY_KEY_IN_USE')}: seconds until the first request’s lease runs out (at most 10)`),
});

/**
 * Every status a route can answer that follows from its declaration (token, scope, organisation,
 * path look-ups, idempotency, charges, request schemas), so no route has to list them; `errors`
 * adds what is particular to one route.
 */
export function routeStatuses(route: RouteSpec): Record<string, ResponseConfig> {
  const described: Record<number, string[]> = {};
  const add = (status: number, description: string) => (described[status] ??= []).push(description);
  const request = route.request ?? {};
  const authenticated = route.scope !== 'public';
  const idempotent = authenticated && route.method !== 'get';
  if (authenticated) {
    add(
      401,
      `Missing, malformed, expired or revoked token (${code('INVALID_TOKEN')}, ${code('TOKEN_EXPIRED')}, ${code('API_KEY_REVOKED')}); ` +
        'without an Authorization header the body is exactly `{"detail": "Not authenticated"}`',
    );
    add(403, `Forbidden: ${forbiddenReasons(route).join('; ')}`);
  }
  if (route.charges) {
    add(
      402,
      `The balance’s \`available\` is short of the price (${code('INSUFFICIENT_FUNDS')}), or the charge would pass a monthly ` +
        `spending limit of the organisation or the key (${code('SPEND_LIMIT_REACHED')}); nothing was reserved`,
    );
  }
  const missing = notFound(route);
  if (missing) add(404, missing);
  if (route.charges) add(409, `The price is above \`max_price\` (${code('PRICE_EXCEEDS_MAX')})`);
  if (idempotent) {
    add(
      409,
      `Idempotency-Key reused with a different request or by another API key or session (${code('IDEMPOTENCY_KEY_REUSED')}), ` +
        `or its first request is still running (${code('IDEMPOTENCY_KEY_IN_USE')}, with \`Retry-After\`)`,
    );
  }
  if (request.body) {
    add(
      400,
      'The body is not valid JSON (malformed, not UTF-8, nested deeper than 64 levels, shorter than its `Content-Length`), or not sent as `application/json`',
    );
    add(413, route.bodyLimitBytes ? `The body is larger than ${route.bodyLimitBytes} bytes` : `The body is larger than ${route.textBody ? route.textBody.limitBytes / 1024 / 1024 : 1} MB`);
    add(415, 'The body is compressed (`Content-Encoding` other than `identity`); send it uncompressed');
  }
  if (request.body || request.path || request.query || request.header) {
    add(422, 'Schema validation failed: one field error per problem (a string holding NUL or an unpaired surrogate is `string_unsafe`)');
  }
  if (idempotent) add(422, `An empty \`Idempotency-Key\` (${code('VALIDATION_ERROR')})`);
  add(
    429,
    authenticated
      ? `Rate limit of the \`${rateLimitGroupOf(route)}\` group exceeded, for this key or session or for all of the user's ` +
          `together (3x), or too many failed authentications from this client address (${code('RATE_LIMITED')}); wait \`Retry-After\` seconds`
      : route.countsOwnRequests
        ? `Too many failed credentials from this client address, or too many requests with this credential (${code('RATE_LIMITED')}); wait \`Retry-After\` seconds`
        : `Too many requests from this client address to routes without a token (${code('RATE_LIMITED')}); wait \`Retry-After\` seconds`,
  );
  add(500, 'Server fault; the body carries the request id, never internals');
  if (authenticated) add(503, `The database is unreachable (${code('DATABASE_UNAVAILABLE')}); retry after \`Retry-After\` seconds`);
  // The route's own reasons come first: they are what a caller of this route meets most.
  for (const [status, description] of Object.entries(route.errors ?? {})) {
    if (status === '404' && missing) continue;
    (described[Number(status)] ??= []).unshift(description);
  }

  const responses: Record<string, ResponseConfig> = {};
  for (const [status, descriptions] of Object.entries(described)) {
    const response = errorResponse(Number(status), descriptions.join('; or '));
    const headers = status === '429' ? RETRY_AFTER : status === '409' && idempotent ? IN_USE_RETRY_AFTER : undefined;
    responses[status] = headers ? { ...response, headers } : response;
  }
  return responses;
}
