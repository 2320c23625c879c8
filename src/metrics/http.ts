import type { Middleware } from 'koa';
import { trace } from '@opentelemetry/api';
import type { Metrics } from './registry.js';

/** Requests no route declared (404, probes of random paths): one series, never the raw URL. */
export const UNMATCHED_ROUTE = 'unmatched';

/** The declared path of the route that served the request (`/api/v1/orgs/{org_oid}`), from the router. */
export function routeTemplate(ctx: { _matchedRoute?: string | RegExp }): string {
  const matched = ctx._matchedRoute;
  return typeof matched === 'string' ? matched.replace(/:([A-Za-z0-9_]+)/g, '{$1}') : UNMATCHED_ROUTE;
}

/**
 * Times every request into `http_request_duration_seconds{route, method, status}` and names the
 * request's server span after its route. Sits outside the error handler, so the status is final.
 */
export function httpMetrics(metrics: Pick<Metrics, 'httpRequestDuration'>): Middleware {
  return async (ctx, next) => {
    const stop = metrics.httpRequestDuration.startTimer();
    try {
      await next();
    } finally {
      const route = routeTemplate(ctx as { _matchedRoute?: string | RegExp });
      // Unknown methods (PROPFIND …) are folded into one value to keep the label closed.
      const method = KNOWN_METHODS.has(ctx.method) ? ctx.method : 'OTHER';
      stop({ route, method, status: String(ctx.status) });
      const span = trace.getActiveSpan();
      if (span && route !== UNMATCHED_ROUTE) {
        span.updateName(`${method} ${route}`);
        span.setAttribute('http.route', route);
      }
    }
  };
}

const KNOWN_METHODS = new Set(['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS']);
