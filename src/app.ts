import Koa from 'koa';
import type { AppDeps } from './deps.js';
import type { AppState } from './http/context.js';
import { requestContext } from './http/requestContext.js';
import { errorHandler } from './http/errorHandler.js';
import { httpMetrics } from './metrics/http.js';
import { buildRouter, type RouterLayers } from './http/router.js';
import type { RouteSpec } from './http/route.js';
import { buildRoutes } from './routes.js';
import { createWebMounts, type DispatchApi } from './dashboard/index.js';

export interface CreateAppOptions {
  /** Routes only a test registers (e.g. one that throws), served and documented like any other. */
  extraRoutes?: RouteSpec[];
  /** Switch layers off (benchmarks measure what they add); on by default. */
  layers?: RouterLayers;
  /**
   * The api's own address once it listens (src/http/listen.ts): with it the app also serves the
   * dashboard and, in development, the OpenID provider. Without it, only the API.
   */
  listeningUrl?: string;
}

export function createApp(deps: AppDeps, options: CreateAppOptions = {}): Koa<AppState> {
  const app = new Koa<AppState>();
  const router = buildRouter(buildRoutes(deps, options.extraRoutes), deps, options.layers);
  const routes = router.routes();
  const allowedMethods = router.allowedMethods();
  // The dashboard's proxy runs a request through the same router, as if it had arrived at /api/v1.
  const dispatchApi: DispatchApi = async (ctx) => {
    const apiCtx = ctx as unknown as Parameters<typeof routes>[0];
    await routes(apiCtx, async () => {
      await allowedMethods(apiCtx, () => Promise.resolve());
    });
  };
  const web = options.listeningUrl ? createWebMounts(deps, { listeningUrl: options.listeningUrl, dispatchApi }) : undefined;
  app.use(requestContext(deps.logger));
  app.use(httpMetrics(deps.metrics));
  // The provider writes its own responses (and its own errors), ahead of our error handler.
  if (web?.devOidc) app.use(web.devOidc);
  app.use(errorHandler());
  if (web) app.use(web.dashboard);
  app.use(routes);
  app.use(allowedMethods);
  // Errors are rendered by errorHandler; what reaches here is socket-level trouble.
  app.on('error', (err: Error) => deps.logger.warn({ err }, 'http error outside a request'));
  return app;
}
