import { decodeJwt, type JWTPayload } from 'jose';
import { DashboardSessions, type DashboardSession } from '../../src/dashboard/sessions.js';
import { SESSION_COOKIE } from '../../src/dashboard/cookies.js';
import type { TestApp } from './testApp.js';
import { signInToDashboard, TestBrowser, type SeenResponse } from './browser.js';
import { uniqueEmail } from './actors.js';

/** A browser signed in to the app's dashboard through the development OpenID provider. */
export interface DashboardUserAgent {
  browser: TestBrowser;
  email: string;
  name: string;
  /** The callback's answer: where the session cookie was set. */
  callback: SeenResponse;
  origin: string;
  /** GET or a CSRF-carrying call under /dashboard, with the dashboard's Origin. */
  call(path: string, init?: { method?: string; body?: unknown; headers?: Record<string, string> }): Promise<SeenResponse>;
  csrfToken(): Promise<string>;
  cookieValue(): string;
}

/** `email`: sign in as someone already known (another browser of the same person). */
export async function signedInUser(app: TestApp, label = 'dash', email = uniqueEmail(label)): Promise<DashboardUserAgent> {
  const browser = new TestBrowser();
  const name = `${label} person`;
  const callback = await signInToDashboard(browser, app.url, { email, name });
  const origin = new URL(app.url).origin;
  const csrfToken = async () => {
    const res = await browser.request(`${app.url}/dashboard/session`);
    return (JSON.parse(res.body) as { csrf_token: string }).csrf_token;
  };
  return {
    browser,
    email,
    name,
    callback,
    origin,
    csrfToken,
    cookieValue: () => browser.cookie(new URL(app.url).hostname, SESSION_COOKIE)!.value,
    call: async (path, init = {}) => {
      const method = init.method ?? 'GET';
      const headers: Record<string, string> = { ...(init.body === undefined ? {} : { 'content-type': 'application/json' }) };
      if (method !== 'GET') Object.assign(headers, { origin, 'x-csrf-token': await csrfToken() });
      return browser.request(`${app.url}${path}`, {
        method,
        headers: { ...headers, ...init.headers },
        ...(init.body === undefined ? {} : { body: JSON.stringify(init.body) }),
      });
    },
  };
}

/** The server-side session behind a cookie, read as the api reads it (the test may look; the browser never does). */
export async function serverSession(app: TestApp, cookieValue: string): Promise<DashboardSession | undefined> {
  const sessions = new DashboardSessions({
    redis: app.deps.redis,
    payloadKeys: app.deps.payloadKeys,
    lifetimes: { idleMs: app.deps.config.dashboard.idleMs, absoluteMs: app.deps.config.dashboard.absoluteMs },
  });
  return sessions.use(cookieValue);
}

export function accessTokenClaims(session: DashboardSession): JWTPayload {
  return decodeJwt(session.tokens.accessToken);
}

export const bodyOf = <T>(res: SeenResponse) => JSON.parse(res.body) as T;
