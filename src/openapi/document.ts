import { OpenAPIRegistry, OpenApiGeneratorV31, type RouteConfig } from '@asteasolutions/zod-to-openapi';
import { z } from 'zod';
import { rateLimitGroupOf, type RouteSpec, type ResponseSpec } from '../http/route.js';
import { isOrgPath } from '../http/router.js';
import { ErrorSchema } from './errorSchemas.js';

/** A response written out in full (never a `$ref`). */
type ResponseConfig = Exclude<RouteConfig['responses'][string], { $ref: string }>;

function errorResponse(description: string): ResponseConfig {
  return { description, content: { 'application/json': { schema: ErrorSchema } } };
}

const RateLimitHeaders = z.object({
  'X-RateLimit-Limit': z.number().int().describe('Per-minute limit of the route’s group, after the plan multiplier'),
  'X-RateLimit-Remaining': z.number().int().describe('Requests left in the current minute window'),
  'X-RateLimit-Reset': z.number().int().describe('Unix time at which the window resets'),
});

const IdempotencyKeyHeader = z.object({
  'idempotency-key': z
    .string()
    .min(1)
    .max(255)
    .optional()
    .describe(
      '1–255 printable ASCII characters (an empty value is 422). The same key and request from the same API key or session within 24 hours replays the stored answer.',
    ),
});

function successResponse(spec: ResponseSpec, rateLimited: boolean): ResponseConfig {
  const headers = spec.headers && rateLimited ? spec.headers.extend(RateLimitHeaders.shape) : (spec.headers ?? (rateLimited ? RateLimitHeaders : undefined));
  return {
    description: spec.description,
    ...(headers ? { headers } : {}),
    ...(spec.schema ? { content: { [spec.contentType ?? 'application/json']: { schema: spec.schema } } } : {}),
  };
}

/** The error answers every route of a given shape can give, so no route has to list them. */
function standardErrors(route: RouteSpec): Record<string, ResponseConfig> {
  const errors: Record<string, ResponseConfig> = {};
  const request = route.request ?? {};
  if (route.scope !== 'public') {
    errors['401'] = errorResponse(
      'Missing, malformed, expired or revoked token (`INVALID_TOKEN`, `TOKEN_EXPIRED`, `API_KEY_REVOKED`); ' +
        'without an Authorization header the body is exactly `{"detail": "Not authenticated"}`',
    );
    const reasons = [
      ...(route.scope !== 'any' ? [`the key lacks \`${route.scope}\` (\`INSUFFICIENT_SCOPE\`)`] : []),
      ...(isOrgPath(route.path) ? ['the caller is not a member of the organisation (`NOT_ORG_MEMBER`)'] : []),
      ...(route.roles ? [`the caller's role is not ${route.roles.join(' or ')} (\`FORBIDDEN\`)`] : []),
    ];
    if (reasons.length > 0) errors['403'] = errorResponse(`Forbidden: ${reasons.join('; ')}`);
    errors['429'] = {
      ...errorResponse(
        `Rate limit of the \`${rateLimitGroupOf(route)}\` group exceeded, for this key or session or for all of the user's ` +
          'together (3x), or too many failed authentications from this client address (`RATE_LIMITED`); wait `Retry-After` seconds',
      ),
      headers: RateLimitHeaders.extend({ 'Retry-After': z.number().int().describe('Seconds to wait') }),
    };
    if (route.method !== 'get') {
      errors['409'] = errorResponse(
        'Idempotency-Key reused with a different request or by another API key or session (`IDEMPOTENCY_KEY_REUSED`), or its first request is still running (`IDEMPOTENCY_KEY_IN_USE`)',
      );
    }
  } else {
    errors['429'] = {
      ...errorResponse('Too many requests from this client address to routes without a token (`RATE_LIMITED`); wait `Retry-After` seconds'),
      headers: RateLimitHeaders.extend({ 'Retry-After': z.number().int().describe('Seconds to wait') }),
    };
  }
  if (request.body) {
    errors['400'] = errorResponse(
      'The body is not valid JSON (malformed, not UTF-8, nested deeper than 64 levels, shorter than its `Content-Length`), or not sent as `application/json`',
    );
    errors['413'] = errorResponse('The body is larger than 1 MB');
    errors['415'] = errorResponse('The body is compressed (`Content-Encoding` other than `identity`); send it uncompressed');
  }
  if (request.body || request.path || request.query || request.header) {
    errors['422'] = errorResponse('Schema validation failed: one field error per problem (a string holding NUL or an unpaired surrogate is `string_unsafe`)');
  }
  errors['500'] = errorResponse('Server fault; the body carries the request id, never internals');
  if (route.scope !== 'public') errors['503'] = errorResponse('The database is unreachable (`DATABASE_UNAVAILABLE`); retry after `Retry-After` seconds');
  for (const [status, description] of Object.entries(route.errors ?? {})) {
    const standard = errors[status]?.description;
    errors[status] = { ...errors[status], ...errorResponse(standard ? `${description}; or ${standard}` : description) };
  }
  return errors;
}

export function buildOpenApiDocument(routes: RouteSpec[], serverUrl?: string): object {
  const registry = new OpenAPIRegistry();
  registry.registerComponent('securitySchemes', 'bearerAuth', {
    type: 'http',
    scheme: 'bearer',
    description:
      'An API key (`svc_live_…` calls the real registrar, `svc_test_…` gets synthetic answers) or a session JWT ' +
      'from the identity provider. The server picks the verifier from the token shape.',
  });
  for (const route of routes.filter((r) => !r.hidden)) {
    const request = route.request ?? {};
    const responses: Record<string, ResponseConfig> = standardErrors(route);
    const authenticated = route.scope !== 'public';
    for (const [status, spec] of Object.entries(route.responses)) responses[status] = successResponse(spec, authenticated);
    const header =
      authenticated && route.method !== 'get'
        ? (request.header?.extend(IdempotencyKeyHeader.shape) ?? IdempotencyKeyHeader)
        : request.header;
    registry.registerPath({
      method: route.method,
      path: route.path,
      operationId: route.operationId,
      summary: route.summary,
      description: [
        route.scope === 'public' ? 'No authentication.' : route.scope === 'any' ? 'Any valid token.' : `Requires scope \`${route.scope}\`.`,
        route.roles ? `Organisation role: ${route.roles.join(' or ')}.` : '',
        route.description ?? '',
      ]
        .filter(Boolean)
        .join(' '),
      tags: route.tags,
      ...(route.scope === 'public'
        ? { security: [] }
        : {
            security: [{ bearerAuth: [] }],
            'x-required-scope': route.scope,
            'x-rate-limit-group': rateLimitGroupOf(route),
            ...(route.roles ? { 'x-required-roles': route.roles } : {}),
          }),
      request: {
        ...(request.path ? { params: request.path } : {}),
        ...(request.query ? { query: request.query } : {}),
        ...(header ? { headers: header } : {}),
        ...(request.body ? { body: { required: true, content: { 'application/json': { schema: request.body } } } } : {}),
      },
      responses,
    });
  }
  return new OpenApiGeneratorV31(registry.definitions).generateDocument({
    openapi: '3.1.0',
    info: {
      title: 'Domain Service API',
      version: '1.0.0',
      description:
        'Register, renew and transfer domains, edit DNS records, manage contacts, check availability, ' +
        'keep a billing balance and group it all in organisations. Every error body is `{detail, code}`; ' +
        'every response carries `X-Request-Id`.',
    },
    ...(serverUrl ? { servers: [{ url: serverUrl }] } : {}),
  });
}
