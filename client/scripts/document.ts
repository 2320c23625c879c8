import { loadConfig } from '../../src/config.js';
import { createLogger } from '../../src/logger.js';
import type { AppDeps } from '../../src/deps.js';
import { buildRoutes } from '../../src/routes.js';
import { buildOpenApiDocument } from '../../src/openapi/document.js';

/**
 * A stand-in for a dependency the route factories only capture in closures: building the route
 * table never calls them, so any property read or call answers another stand-in. This keeps the
 * generator working when a new route factory captures a dependency it has not seen before.
 */
function inert(): unknown {
  const target = function () {};
  return new Proxy(target, {
    get: (_t, property) => (property === 'then' ? undefined : property === Symbol.toPrimitive ? () => '' : inert()),
    apply: () => inert(),
    construct: () => inert() as object,
  });
}

/**
 * The OpenAPI document the api serves at `/api/v1/openapi.json`, built from the same route table
 * (src/routes.ts) without connecting to PostgreSQL, Redis or Temporal.
 */
export function buildServedDocument(): object {
  const config = loadConfig({ NODE_ENV: 'development', LOG_LEVEL: 'silent' });
  const real: Partial<AppDeps> = { config, logger: createLogger(config, {}) };
  const deps = new Proxy(real, {
    get: (target, property) => (property in target ? target[property as keyof AppDeps] : inert()),
  }) as AppDeps;
  return buildOpenApiDocument(buildRoutes(deps));
}
