import Router from '@koa/router';
import type { RouterMiddleware } from '@koa/router';
import type { AppState } from './context.js';
import { jsonBody } from './jsonBody.js';
import { koaPath, type RouteSpec } from './route.js';
import { validate, type InputState } from './validate.js';

const NO_INPUT = { path: undefined, query: undefined, header: undefined, body: undefined };

/** The middleware chain of one route, in order: body, validation, handler. */
function routeChain(route: RouteSpec): RouterMiddleware<InputState>[] {
  const chain: RouterMiddleware<InputState>[] = [];
  if (route.request?.body) chain.push(jsonBody() as RouterMiddleware<InputState>);
  if (route.request) chain.push(validate(route.request));
  chain.push(async (ctx) => {
    await route.handler(ctx as never, ctx.state.input ?? NO_INPUT);
  });
  return chain;
}

export function buildRouter(routes: RouteSpec[]): Router<AppState> {
  const router = new Router<AppState>();
  for (const route of routes) {
    router.register(koaPath(route.path), [route.method.toUpperCase()], routeChain(route) as never);
  }
  return router;
}
