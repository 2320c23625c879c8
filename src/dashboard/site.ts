import type { ParameterizedContext } from 'koa';
import type { Config } from '../config.js';
import { isLoopbackHost } from '../http/loopback.js';

/** Every dashboard path starts with this. */
export const DASHBOARD_PATH = '/dashboard';

/**
 * Where the dashboard is, as browsers see it: the origins it may be opened at (its public one, the
 * other loopback name of a loopback one, and DASHBOARD_ORIGINS), each with its own sign-in
 * callback. A request's origin is the allowed one whose host it was sent to; state-changing calls
 * must carry that same origin in `Origin`.
 */
export interface DashboardSite {
  publicOrigin: string;
  origins: string[];
  /** The allowed origin a request addressed (its `Host`), else the public one. */
  originFor(host: string): string;
  callbackUrl(origin: string): string;
}

function loopbackAliases(origin: string): string[] {
  const url = new URL(origin);
  if (url.protocol !== 'http:' || !isLoopbackHost(url.hostname)) return [origin];
  const port = url.port ? `:${url.port}` : '';
  return [origin, `http://127.0.0.1${port}`, `http://localhost${port}`];
}

/**
 * The api's own origin as a browser on this machine and the api itself both reach it: an api
 * listening on every address (0.0.0.0 in a container published on the host's loopback, see
 * DEV_IDP_BEHIND_LOOPBACK in src/config.ts) is reached at 127.0.0.1.
 */
export function loopbackReachableOrigin(listeningUrl: string): string {
  const url = new URL(listeningUrl);
  if (url.hostname === '0.0.0.0' || url.hostname === '[::]') url.hostname = '127.0.0.1';
  return url.origin;
}

export function dashboardSite(config: Pick<Config, 'dashboard'>, listeningUrl: string): DashboardSite {
  const publicOrigin = config.dashboard.publicUrl ? new URL(config.dashboard.publicUrl).origin : loopbackReachableOrigin(listeningUrl);
  const origins = [...new Set([...loopbackAliases(publicOrigin), ...config.dashboard.extraOrigins])];
  const byHost = new Map(origins.map((origin) => [new URL(origin).host, origin]));
  return {
    publicOrigin,
    origins,
    originFor: (host) => byHost.get(host.toLowerCase()) ?? publicOrigin,
    callbackUrl: (origin) => `${origin}${DASHBOARD_PATH}/callback`,
  };
}

/**
 * No other site may frame a dashboard page (clickjacking: a hidden frame over a decoy button that
 * deletes a key). CSP `frame-ancestors` for current browsers, X-Frame-Options for older ones.
 */
export function refuseFraming(ctx: Pick<ParameterizedContext, 'set'>): void {
  ctx.set('Content-Security-Policy', "frame-ancestors 'none'");
  ctx.set('X-Frame-Options', 'DENY');
}
