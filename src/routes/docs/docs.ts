import { z } from 'zod';
import { defineRoute, type RouteSpec } from '../../http/route.js';
import { buildOpenApiDocument } from '../../openapi/document.js';
import { renderDocsPage } from '../../openapi/docsPage.js';

/** The reference is generated from the same route specs the router serves. */
export function docsRoutes(allRoutes: () => RouteSpec[]) {
  let cached: { document: object; page: string } | undefined;
  const reference = () => {
    if (!cached) {
      const document = buildOpenApiDocument(allRoutes());
      cached = { document, page: renderDocsPage(document) };
    }
    return cached;
  };
  return [
    defineRoute({
      method: 'get',
      path: '/api/v1/openapi.json',
      operationId: 'getOpenApiDocument',
      summary: 'The OpenAPI 3.1 document of this API',
      tags: ['reference'],
      scope: 'public',
      responses: { 200: { description: 'OpenAPI 3.1 document', schema: z.record(z.string(), z.unknown()) } },
      handler: (ctx) => {
        ctx.body = reference().document;
      },
    }),
    defineRoute({
      method: 'get',
      path: '/docs',
      operationId: 'getApiReferencePage',
      summary: 'The API reference as a readable page',
      tags: ['reference'],
      scope: 'public',
      responses: { 200: { description: 'HTML page', contentType: 'text/html', schema: z.string() } },
      handler: (ctx) => {
        ctx.type = 'text/html; charset=utf-8';
        ctx.body = reference().page;
      },
    }),
  ];
}
