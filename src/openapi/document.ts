import { OpenAPIRegistry, OpenApiGeneratorV31 } from '@asteasolutions/zod-to-openapi';
import { z } from 'zod';
import { rateLimitGroupOf, type RouteSpec, type ResponseSpec } from '../http/route.js';
import { RateLimitHeaders, routeStatuses, type ResponseConfig } from './statuses.js';
import { addExamples } from './examples.js';
import { documentTags } from './tags.js';

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

/**
 * Where the API is. Relative: the origin that served the document, which is where the paths are
 * (`/api/v1/…`) whichever host an operator runs it on.
 */
const SAME_ORIGIN = { url: '/', description: 'The server that serves this document' };

export function buildOpenApiDocument(routes: RouteSpec[], serverUrl?: string): object {
  const registry = new OpenAPIRegistry();
  registry.registerComponent('securitySchemes', 'bearerAuth', {
    type: 'http',
    scheme: 'bearer',
    description:
      'An API key (`svc_live_…` calls the real registrar, `svc_test_…` gets synthetic answers) or a session JWT ' +
      'from the identity provider. The server picks the verifier from the token shape.',
  });
  const documented = routes.filter((r) => !r.hidden);
  for (const route of documented) {
    const request = route.request ?? {};
    const responses: Record<string, ResponseConfig> = routeStatuses(route);
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
        ...(request.body ? { body: { required: !request.body.safeParse(undefined).success, content: { [route.textBody?.contentTypes[0] ?? 'application/json']: { schema: request.body } } } } : {}),
      },
      responses,
    });
  }
  const document = new OpenApiGeneratorV31(registry.definitions).generateDocument({
    openapi: '3.1.0',
    info: {
      title: 'Domain Service API',
      version: '1.0.0',
      description:
        'Register, renew and transfer domains, edit DNS records, manage contacts, check availability, ' +
        'keep a billing balance and group it all in organisations. Every error body is `{detail, code}`; ' +
        'every response carries `X-Request-Id`.',
      contact: { name: 'Domain Service maintainers' },
      license: { name: 'Proprietary', identifier: 'LicenseRef-Proprietary' },
    },
    servers: [serverUrl ? { url: serverUrl } : SAME_ORIGIN],
    tags: documentTags(documented.flatMap((route) => route.tags)),
  });
  addExamples(document);
  return document;
}
