import type { Middleware } from 'koa';
import type { AppDeps } from '../deps.js';
import type { AppState } from '../http/context.js';
import { MethodNotAllowedError, NotFoundError } from '../errors.js';
import { consumeAddressPool } from '../rateLimit/addressLimits.js';
import { createDevOidcProvider, devOidcIssuer } from '../auth/dev/oidcProvider.js';
import { DevAccounts } from '../auth/dev/oidcRedisAdapter.js';
import { devOidcMount } from '../auth/dev/oidcInteractions.js';
import { DashboardOidcClient } from './oidcClient.js';
import { DashboardSessions } from './sessions.js';
import { DASHBOARD_PATH, dashboardSite, loopbackReachableOrigin, refuseFraming } from './site.js';
import { callback, login, logout, sessionInfo, type DashboardCtx, type SignInDeps } from './signIn.js';
import { proxyToApi, type DispatchApi } from './proxy.js';
import { dashboardFiles } from './staticFiles.js';

export type { DispatchApi } from './proxy.js';

export interface WebMounts {
  /** The dashboard: sign-in, session, the API proxy and the front end's files. */
  dashboard: Middleware<AppState>;
  /** The development OpenID provider, when the development identity provider is on. */
  devOidc: Middleware<AppState> | undefined;
}

type Handler = (deps: SignInDeps, ctx: DashboardCtx) => Promise<void>;

/** The sign-in routes under /dashboard, each with its one method. */
const SIGN_IN_ROUTES: Record<string, { method: 'GET' | 'POST'; handle: Handler }> = {
  '/login': { method: 'GET', handle: login },
  '/callback': { method: 'GET', handle: callback },
  '/session': { method: 'GET', handle: sessionInfo },
  '/logout': { method: 'POST', handle: logout },
};

/**
 * The browser-facing parts the api serves beside `/api/v1`. They need the api's own address (the
 * development provider's issuer, the dashboard's default origin), so the app is built once it listens.
 */
export function createWebMounts(deps: AppDeps, props: { listeningUrl: string; dispatchApi: DispatchApi }): WebMounts {
  const { config } = deps;
  const site = dashboardSite(config, props.listeningUrl);
  const apiOrigin = loopbackReachableOrigin(props.listeningUrl);
  let devOidc: Middleware<AppState> | undefined;
  let issuer = config.auth?.issuer;
  if (deps.devIdentity) {
    const accounts = new DevAccounts(deps.redis);
    const devOidcProps = {
      devIdentity: deps.devIdentity,
      apiOrigin,
      client: config.dashboard.client!,
      deviceClientId: config.deviceClientId,
      redirectUris: site.origins.map((origin) => site.callbackUrl(origin)),
      accounts,
      redis: deps.redis,
    };
    devOidc = devOidcMount(() => createDevOidcProvider(devOidcProps), accounts, site.origins);
    issuer = devOidcIssuer(apiOrigin);
    deps.devIdentity.trustIssuer(issuer);
  }
  const client = config.dashboard.client;
  const signInDeps: SignInDeps & { dispatchApi: DispatchApi } = {
    redis: deps.redis,
    site,
    sessions: new DashboardSessions({
      redis: deps.redis,
      payloadKeys: deps.payloadKeys,
      lifetimes: { idleMs: config.dashboard.idleMs, absoluteMs: config.dashboard.absoluteMs },
    }),
    oidcClient: issuer && client ? new DashboardOidcClient({ issuer, client }) : undefined,
    absoluteMs: config.dashboard.absoluteMs,
    dispatchApi: props.dispatchApi,
  };
  const files = dashboardFiles(config.dashboard.distDir);

  const dashboard: Middleware<AppState> = async (ctx, next) => {
    if (ctx.path !== DASHBOARD_PATH && !ctx.path.startsWith(`${DASHBOARD_PATH}/`)) {
      await next();
      return;
    }
    refuseFraming(ctx);
    const subpath = ctx.path.slice(DASHBOARD_PATH.length);
    if (subpath.startsWith('/api/v1/')) return proxyToApi(signInDeps, ctx);
    if (subpath.startsWith('/api/')) throw new NotFoundError();
    const route = SIGN_IN_ROUTES[subpath];
    if (route) {
      if (ctx.method !== route.method) throw new MethodNotAllowedError([route.method]);
      // Nothing else limits these before a session exists: count them per client address.
      await consumeAddressPool(deps, ctx, 'public');
      return route.handle(signInDeps, ctx);
    }
    if (ctx.method !== 'GET' && ctx.method !== 'HEAD') throw new MethodNotAllowedError(['GET', 'HEAD']);
    return files(ctx);
  };
  return { dashboard, devOidc };
}
