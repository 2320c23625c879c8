/**
 * What the reference promises of every route, checked over the whole route table: an example for
 * every JSON request body and response, each one accepted by the schema the app itself validates
 * or answers with; and the statuses each route's declaration implies.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { z } from 'zod';
import { startTestApp, type TestApp } from '../support/testApp.js';
import { buildRoutes } from '../../src/routes.js';
import type { RouteSpec } from '../../src/http/route.js';
import { ErrorSchema, NotAuthenticatedSchema } from '../../src/openapi/errorSchemas.js';

interface Media {
  schema?: unknown;
  example?: unknown;
}
interface Operation {
  requestBody?: { content: Record<string, Media> };
  responses: Record<string, { content?: Record<string, Media> }>;
}

let app: TestApp;
let document: { paths: Record<string, Record<string, Operation>> };
let routes: { route: RouteSpec; op: Operation }[];

beforeAll(async () => {
  app = await startTestApp();
  document = (await (await app.fetch('/api/v1/openapi.json')).json()) as typeof document;
  routes = buildRoutes(app.deps)
    .filter((route) => !route.hidden)
    .map((route) => ({ route, op: document.paths[route.path]![route.method]! }));
});
afterAll(async () => app?.close());

const problems = (schema: z.ZodType, value: unknown) => {
  const result = schema.safeParse(value);
  return result.success ? [] : result.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`);
};

describe('examples', () => {
  it('every request body has an example the route accepts, in the media type the route reads', () => {
    const wrong: Record<string, unknown> = {};
    for (const { route, op } of routes) {
      const body = route.request?.body;
      if (!body) continue;
      const example = op.requestBody?.content[route.textBody?.contentTypes[0] ?? 'application/json']?.example;
      if (example === undefined) wrong[route.operationId] = 'no example';
      else if (problems(body, example).length > 0) wrong[route.operationId] = { example, problems: problems(body, example) };
    }
    expect(wrong).toEqual({});
  });

  it('every JSON response has an example of what the route answers', () => {
    const wrong: Record<string, unknown> = {};
    for (const { route, op } of routes) {
      for (const [status, response] of Object.entries(op.responses)) {
        const media = response.content?.['application/json'];
        if (!media) continue;
        const where = `${route.operationId} ${status}`;
        if (media.example === undefined) {
          wrong[where] = 'no example';
          continue;
        }
        const declared = route.responses[Number(status)]?.schema;
        const schema = declared ?? (status === '401' ? ErrorSchema.or(NotAuthenticatedSchema) : ErrorSchema);
        if (problems(schema, media.example).length > 0) wrong[where] = { example: media.example, problems: problems(schema, media.example) };
      }
    }
    expect(wrong).toEqual({});
  });

  it('error examples carry the code the status is documented with', () => {
    const op = document.paths['/api/v1/orgs/{org_oid}/domains/{domain}/auth-code']!.get!;
    expect(op.responses['409']!.content!['application/json']!.example).toMatchObject({ code: 'DOMAIN_LOCKED' });
    expect(op.responses['404']!.content!['application/json']!.example).toMatchObject({ code: 'NOT_FOUND' });
    const register = document.paths['/api/v1/orgs/{org_oid}/domains']!.post!;
    expect(register.responses['402']!.content!['application/json']!.example).toMatchObject({ code: 'INSUFFICIENT_FUNDS' });
  });
});

describe('statuses a route declares by construction', () => {
  it('a path that looks something up answers 404', () => {
    const missing = routes
      .filter(({ route }) => /\{(?!org_oid\})[a-z_]+\}/.test(route.path))
      .filter(({ op }) => !op.responses['404'])
      .map(({ route }) => route.operationId);
    expect(missing).toEqual([]);
    expect(document.paths['/api/v1/orgs/{org_oid}/operations/{operation_id}']!.get!.responses['404']).toBeDefined();
    expect(document.paths['/api/v1/orgs/{org_oid}/domains/{domain}']!.patch!.responses['404']).toBeDefined();
  });

  it('a route with a token answers 401, 403, 429 and 503; one that writes, 409 and 422 for its Idempotency-Key', () => {
    const missing: string[] = [];
    for (const { route, op } of routes) {
      const expected = [
        ...(route.scope !== 'public' ? ['401', '403', '429', '503'] : ['429']),
        ...(route.scope !== 'public' && route.method !== 'get' ? ['409', '422'] : []),
        ...(route.request?.body ? ['400', '413', '415', '422'] : []),
        ...(route.charges ? ['402', '409'] : []),
        '500',
      ];
      for (const status of expected) if (!op.responses[status]) missing.push(`${route.operationId} ${status}`);
    }
    expect(missing).toEqual([]);
  });

  it('the paid routes take Dry-Run, and so does the zone file import (unpaid, but it may change thousands of records)', () => {
    const paid = routes.filter(({ route }) => route.charges).map(({ route }) => route.operationId);
    const dryRun = routes.filter(({ route }) => route.request?.header?.shape['dry-run']).map(({ route }) => route.operationId);
    expect([...paid, 'importZoneFile'].sort()).toEqual(dryRun.sort());
    expect(paid.sort()).toEqual(['registerDomain', 'renewDomain', 'transferDomain']);
  });
});
