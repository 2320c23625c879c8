import { z } from 'zod';
import { defineRoute, type RouteSpec } from '../../http/route.js';
import { buildOpenApiDocument } from '../../openapi/document.js';
import { renderDocsPage } from '../../openapi/docsPage.js';
import { REFERENCE_ASSETS, REFERENCE_ASSET_PATH, referenceAsset, renderReferencePage, type ReferenceAsset } from '../../openapi/referenceUi.js';

/** The reference is generated from the same route specs the router serves. */
export function docsRoutes(allRoutes: () => RouteSpec[]) {
  const interactivePage = renderReferencePage('Domain Service');
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
      responses: { 200: { description: 'OpenAPI 3.1 document', schema: z.record(z.string(), z.unknown()).meta({ example: { openapi: '3.1.0', info: { title: 'Domain Service API', version: '1.0.0' }, paths: {} } }) } },
      handler: (ctx) => {
        ctx.body = reference().document;
      },
    }),
    defineRoute({
      method: 'get',
      path: '/docs',
      operationId: 'getApiReferencePage',
      summary: 'The interactive API reference (Swagger UI): every schema expanded, "Try it out" with your bearer token',
      tags: ['reference'],
      scope: 'public',
      responses: { 200: { description: 'HTML page', contentType: 'text/html', schema: z.string() } },
      handler: (ctx) => {
        ctx.type = 'text/html; charset=utf-8';
        ctx.body = interactivePage;
      },
    }),
    defineRoute({
      method: 'get',
      path: '/docs/plain',
      operationId: 'getPlainApiReferencePage',
      summary: 'The API reference as a plain page, readable without JavaScript',
      tags: ['reference'],
      scope: 'public',
      responses: { 200: { description: 'HTML page', contentType: 'text/html', schema: z.string() } },
      handler: (ctx) => {
        ctx.type = 'text/html; charset=utf-8';
        ctx.body = reference().page;
      },
    }),
    defineRoute({
      method: 'get',
      path: `${REFERENCE_ASSET_PATH}/{file}`,
      operationId: 'getApiReferenceAsset',
      summary: 'A file of the interactive reference (Swagger UI from npm, served here: no CDN)',
      tags: ['reference'],
      scope: 'public',
      hidden: true,
      request: { path: z.object({ file: z.enum(Object.keys(REFERENCE_ASSETS) as [ReferenceAsset, ...ReferenceAsset[]]) }) },
      responses: { 200: { description: 'The file' } },
      handler: async (ctx, { path }) => {
        ctx.type = REFERENCE_ASSETS[path.file];
        ctx.set('Cache-Control', 'public, max-age=3600');
        ctx.body = await referenceAsset(path.file);
      },
    }),
  ];
}
