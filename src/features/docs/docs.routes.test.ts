import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { validate as validateOpenApi } from '@readme/openapi-parser';
import { defineRoute } from '../../http/route.js';
import { startTestApp, type TestApp } from '../../../test/support/testApp.js';

const widgetRoute = defineRoute({
  method: 'post',
  path: '/api/v1/test-widgets/{widget_id}',
  operationId: 'createTestWidget',
  summary: 'A route that exists only in this test',
  tags: ['test'],
  scope: 'public',
  request: {
    path: z.object({ widget_id: z.string().describe('Widget id') }),
    body: z.object({ colour: z.enum(['red', 'blue']) }).meta({ id: 'TestWidgetInput' }),
  },
  responses: { 201: { description: 'Created', schema: z.object({ id: z.string() }) } },
  errors: { 404: 'No such widget (`NOT_FOUND`)', 422: 'Unknown colour' },
  handler: (ctx) => {
    ctx.status = 201;
  },
});

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- a parsed JSON document, inspected field by field
type OpenApiDoc = any;

let app: TestApp;
beforeAll(async () => {
  app = await startTestApp({ extraRoutes: [widgetRoute] });
});
afterAll(async () => app?.close());

describe('GET /api/v1/openapi.json', () => {
  it('is a valid OpenAPI 3.1 document', async () => {
    const res = await app.fetch('/api/v1/openapi.json');
    expect(res.status).toBe(200);
    const document: OpenApiDoc = await res.json();
    expect(document.openapi).toBe('3.1.0');
    const result = await validateOpenApi(structuredClone(document));
    expect(result.valid ? [] : result.errors).toEqual([]);
  });

  it('documents every registered route, with its schemas and the standard errors, by construction', async () => {
    const document: OpenApiDoc = await (await app.fetch('/api/v1/openapi.json')).json();
    expect(Object.keys(document.paths)).toEqual(
      expect.arrayContaining(['/healthz', '/readyz', '/api/v1/openapi.json', '/docs', '/docs/plain', '/api/v1/test-widgets/{widget_id}']),
    );
    expect(document.paths['/dev/jwks.json']).toBeUndefined();
    const op = document.paths['/api/v1/test-widgets/{widget_id}'].post;
    expect(op.operationId).toBe('createTestWidget');
    expect(op.parameters).toEqual([expect.objectContaining({ name: 'widget_id', in: 'path', required: true })]);
    expect(op.requestBody.content['application/json'].schema).toEqual({ $ref: '#/components/schemas/TestWidgetInput' });
    expect(Object.keys(op.responses).sort()).toEqual(['201', '400', '404', '413', '415', '422', '429', '500']);
    expect(op.responses['429'].description).toContain('client address');
    expect(op.responses['404'].description).toBe('No such widget (`NOT_FOUND`)');
    expect(op.responses['422'].description).toBe(
      'Unknown colour; or Schema validation failed: one field error per problem (a string holding NUL or an unpaired surrogate is `string_unsafe`)',
    );
    expect(op.responses['422'].content['application/json'].schema).toEqual({ $ref: '#/components/schemas/Error' });
    expect(document.components.schemas.TestWidgetInput.properties.colour.enum).toEqual(['red', 'blue']);
  });
});

describe('GET /docs', () => {
  it('serves the interactive reference and every file it loads from our own origin', async () => {
    const res = await app.fetch('/docs');
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('text/html; charset=utf-8');
    const html = await res.text();
    // Every script, stylesheet and icon is a path on this origin: nothing from a CDN.
    const loaded = [...html.matchAll(/(?:src|href)="([^"]+)"/g)].map((m) => m[1]!);
    expect(loaded.filter((url) => url.includes('/docs/assets/'))).toHaveLength(4);
    for (const url of loaded) expect(url, url).toMatch(/^\/(?!\/)/);
    const types: Record<string, RegExp> = { css: /^text\/css/, js: /^text\/javascript/, png: /^image\/png$/ };
    for (const url of loaded.filter((u) => u.startsWith('/docs/assets/'))) {
      const asset = await app.fetch(url);
      expect(asset.status, url).toBe(200);
      expect(asset.headers.get('content-type'), url).toMatch(types[url.split('.').pop()!]!);
      expect((await asset.arrayBuffer()).byteLength, url).toBeGreaterThan(100);
    }
    // The initializer points Swagger UI at our document, with no outside validator.
    const init = await (await app.fetch('/docs/assets/reference.js')).text();
    expect(init).toContain("url: '/api/v1/openapi.json'");
    expect(init).toContain('validatorUrl: null');
    expect(await (await app.fetch('/docs/assets/swagger-ui-bundle.js')).text()).toContain('SwaggerUIBundle');
    // Only the listed files: nothing else of the package, and no path tricks.
    expect((await app.fetch('/docs/assets/package.json')).status).toBe(422);
    expect((await app.fetch('/docs/assets/..%2Fpackage.json')).status).toBe(422);
  });

  it('declares bearer authentication, so "Authorize" takes a token for "Try it out"', async () => {
    const document: OpenApiDoc = await (await app.fetch('/api/v1/openapi.json')).json();
    expect(document.components.securitySchemes.bearerAuth).toMatchObject({ type: 'http', scheme: 'bearer' });
  });
});

describe('GET /docs/plain', () => {
  it('renders a readable page listing every documented operation', async () => {
    const res = await app.fetch('/docs/plain');
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('text/html; charset=utf-8');
    const html = await res.text();
    const document: OpenApiDoc = await (await app.fetch('/api/v1/openapi.json')).json();
    for (const [path, methods] of Object.entries<Record<string, { operationId: string }>>(document.paths)) {
      for (const [method, op] of Object.entries(methods)) {
        expect(html).toContain(`id="${op.operationId}"`);
        expect(html).toContain(`${method.toUpperCase()}</span> <code>${path}</code>`);
      }
    }
    expect(html).toContain('id="schema-TestWidgetInput"');
  });
});
