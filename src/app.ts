import Koa from 'koa';
import type { AppDeps } from './deps.js';
import type { AppState } from './http/context.js';
import { requestContext } from './http/requestContext.js';
import { errorHandler } from './http/errorHandler.js';
import { httpMetrics } from './metrics/http.js';
import { buildRouter, type RouterLayers } from './http/router.js';
import type { RouteSpec } from './http/route.js';
import { buildRoutes } from './routes/index.js';

export interface CreateAppOptions {
  /** Routes only a test registers (e.g. one that throws), served and documented like any other. */
  extraRoutes?: RouteSpec[];
  /** Switch layers off (benchmarks measure what they add); on by default. */
  layers?: RouterLayers;
}

export function createApp(deps: AppDeps, options: CreateAppOptions = {}): Koa<AppState> {
  const app = new Koa<AppState>();
  const router = buildRouter(buildRoutes(deps, options.extraRoutes), deps, options.layers);
  app.use(requestContext(deps.logger));
  app.use(httpMetrics(deps.metrics));
  app.use(errorHandler());
  app.use(router.routes());
  app.use(router.allowedMethods());
  // Errors are rendered by errorHandler; what reaches here is socket-level trouble.
  app.on('error', (err: Error) => deps.logger.warn({ err }, 'http error outside a request'));
  return app;
}
