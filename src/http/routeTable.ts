import FindMyWay from 'find-my-way';
import compose from 'koa-compose';
import type { Middleware } from 'koa';
import type { RouterMiddleware } from '@koa/router';
import type { AppState } from './context.js';

export type Layer = RouterMiddleware<AppState>;
type RoutedContext = Parameters<Layer>[0] & { _matchedRoute?: string };

/** Methods the service answers at all: anything else is 501 (as @koa/router answered it). */
const IMPLEMENTED = new Set(['HEAD', 'OPTIONS', 'GET', 'PUT', 'PATCH', 'POST', 'DELETE']);

interface Entry {
  /** Its place in the order routes were added (`Allow` lists methods in that order). */
  order: number;
  /** As registered, `/api/v1/orgs/:org_oid` (the metrics label, src/metrics/http.ts). */
  path: string;
  /** GET routes answer HEAD too. */
  methods: string[];
  chain: compose.ComposedMiddleware<RoutedContext>;
}

/**
 * The api's routes in a radix tree (find-my-way), each with its middleware chain composed once at
 * start-up. A request's route is found by walking its path's segments, where @koa/router tried every
 * route's regular expression in turn and composed the chain again for each request (docs/bench.md).
 * It routes as @koa/router did here: case-insensitive, a trailing slash ignored, path parameters
 * percent-decoded (`%2F` too), 405 with `Allow` for a path served under other methods, `OPTIONS`
 * answered with `Allow`, 501 for a method the service never serves. A static segment is preferred
 * to a parameter; no two routes of one method overlap otherwise (test/http/routeTable.test.ts checks it).
 */
export class RouteTable {
  private readonly tree = FindMyWay({
    caseSensitive: false,
    ignoreTrailingSlash: true,
    // Domain names run to 253 characters and record ids are short: this only guards the tree.
    maxParamLength: 2_048,
  });
  private added = 0;

  /** `path` in Koa's form (`/orgs/:org_oid`); `chain` runs in order, the last layer answering. */
  add(method: string, path: string, chain: Layer[]): void {
    const upper = method.toUpperCase();
    const entry: Entry = { order: this.added++, path, methods: upper === 'GET' ? ['HEAD', 'GET'] : [upper], chain: compose(chain as compose.Middleware<RoutedContext>[]) };
    for (const each of entry.methods) this.tree.on(each as FindMyWay.HTTPMethod, path, () => undefined, entry);
  }

  /** Runs the matching route's chain, or passes the request on when no route matches. */
  routes(): Middleware<AppState> {
    return (ctx, next) => {
      const found = this.tree.find(ctx.method as FindMyWay.HTTPMethod, ctx.path);
      if (!found) return next();
      const routed = ctx as RoutedContext;
      const entry = found.store as Entry;
      routed.params = found.params as Record<string, string>;
      routed._matchedRoute = entry.path;
      return entry.chain(routed, next);
    };
  }

  /** After the rest: 405, `OPTIONS` or 501 for a request no route of its method matched. */
  allowedMethods(): Middleware<AppState> {
    return async (ctx, next) => {
      await next();
      if (ctx.status !== 404 || ctx.body != null) return;
      const allowed = this.methodsAt(ctx.path);
      const allow = allowed.join(', ');
      if (!IMPLEMENTED.has(ctx.method)) {
        ctx.status = 501;
        ctx.set('Allow', allow);
      } else if (allowed.length > 0 && ctx.method === 'OPTIONS') {
        ctx.status = 200;
        ctx.body = '';
        ctx.set('Allow', allow);
      } else if (allowed.length > 0 && !allowed.includes(ctx.method)) {
        ctx.status = 405;
        ctx.set('Allow', allow);
      }
    };
  }

  /** The methods served at `path`, in the order their routes were added: one look-up per method. */
  private methodsAt(path: string): string[] {
    const entries = new Set<Entry>();
    for (const method of IMPLEMENTED) {
      const found = this.tree.find(method as FindMyWay.HTTPMethod, path);
      if (found) entries.add(found.store as Entry);
    }
    return [...new Set([...entries].sort((a, b) => a.order - b.order).flatMap((entry) => entry.methods))];
  }
}
