import { isLoopbackHost, type Config } from '../config.js';

/** Every dashboard path starts with this; its cookies are scoped to it. */
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
  /** `Secure` everywhere but plain HTTP on loopback, where browsers would drop it. */
  secureCookies(origin: string): boolean;
}

function loopbackAliases(origin: string): string[] {
  const url = new URL(origin);
  if (url.protocol !== 'http:' || !isLoopbackHost(url.hostname)) return [origin];
  const port = url.port ? `:${url.port}` : '';
  return [origin, `http://127.0.0.1${port}`, `http://localhost${port}`];
}

export function dashboardSite(config: Pick<Config, 'dashboard'>, listeningUrl: string): DashboardSite {
  const publicOrigin = new URL(config.dashboard.publicUrl ?? listeningUrl).origin;
  const origins = [...new Set([...loopbackAliases(publicOrigin), ...config.dashboard.extraOrigins])];
  const byHost = new Map(origins.map((origin) => [new URL(origin).host, origin]));
  return {
    publicOrigin,
    origins,
    originFor: (host) => byHost.get(host.toLowerCase()) ?? publicOrigin,
    callbackUrl: (origin) => `${origin}${DASHBOARD_PATH}/callback`,
    secureCookies: (origin) => {
      const url = new URL(origin);
      return url.protocol === 'https:' || !isLoopbackHost(url.hostname);
    },
  };
}
