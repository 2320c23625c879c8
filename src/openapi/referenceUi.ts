import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import path from 'node:path';

/**
 * The interactive reference: Swagger UI (`swagger-ui-dist`, from npm) served from our own origin,
 * no CDN. It reads `/api/v1/openapi.json`, expands every schema, takes a bearer token under
 * "Authorize" (kept in the browser's storage across reloads) and sends "Try it out" requests to this api.
 */
const DIST = path.dirname(createRequire(import.meta.url).resolve('swagger-ui-dist/package.json'));

/** The files the page loads, by the name it loads them under, with their content type. */
export const REFERENCE_ASSETS = {
  'swagger-ui.css': 'text/css; charset=utf-8',
  'swagger-ui-bundle.js': 'text/javascript; charset=utf-8',
  'favicon-32x32.png': 'image/png',
  'reference.js': 'text/javascript; charset=utf-8',
} as const;
export type ReferenceAsset = keyof typeof REFERENCE_ASSETS;

export const REFERENCE_ASSET_PATH = '/docs/assets';

/** Ours: starts Swagger UI on the document (kept out of the HTML so a strict CSP can forbid inline scripts). */
const INITIALIZER = `window.addEventListener('load', function () {
  window.ui = SwaggerUIBundle({
    url: '/api/v1/openapi.json',
    dom_id: '#reference',
    deepLinking: true,
    persistAuthorization: true,
    tryItOutEnabled: true,
    displayRequestDuration: true,
    defaultModelsExpandDepth: 1,
    defaultModelExpandDepth: 3,
    validatorUrl: null,
  });
});
`;

const cache = new Map<ReferenceAsset, Buffer>();

export async function referenceAsset(name: ReferenceAsset): Promise<Buffer> {
  let body = cache.get(name);
  if (!body) {
    body = name === 'reference.js' ? Buffer.from(INITIALIZER) : await readFile(path.join(DIST, name));
    cache.set(name, body);
  }
  return body;
}

export function renderReferencePage(title: string): string {
  const asset = (name: ReferenceAsset) => `${REFERENCE_ASSET_PATH}/${name}`;
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${title.replace(/[&<>"']/g, '')} – API reference</title>
<link rel="icon" type="image/png" href="${asset('favicon-32x32.png')}">
<link rel="stylesheet" href="${asset('swagger-ui.css')}">
</head>
<body>
<noscript><p>This reference needs JavaScript. <a href="/docs/plain">The same reference as a plain page</a>; the document itself: <a href="/api/v1/openapi.json">/api/v1/openapi.json</a>.</p></noscript>
<div id="reference"></div>
<script src="${asset('swagger-ui-bundle.js')}"></script>
<script src="${asset('reference.js')}"></script>
</body>
</html>
`;
}
