import { timingSafeEqual } from 'node:crypto';
import type { ParameterizedContext } from 'koa';
import { CsrfFailedError } from '../auth/errors.js';
import type { DashboardSession } from './sessions.js';
import type { DashboardSite } from './site.js';

/** Methods that change state: each needs the session's CSRF token and the dashboard's own Origin. */
export const STATE_CHANGING = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);

function sameToken(sent: string, expected: string): boolean {
  const a = Buffer.from(sent);
  const b = Buffer.from(expected);
  return a.length === b.length && timingSafeEqual(a, b);
}

/**
 * A page on another site can make the browser send our cookie (SameSite=Lax still allows top-level
 * POST navigations from some browsers' history, and subdomains are same-site): it can neither read
 * the CSRF token (only `GET /dashboard/session` returns it, same-origin) nor forge `Origin`.
 */
export function checkCsrf(ctx: Pick<ParameterizedContext, 'get' | 'host'>, session: DashboardSession, site: DashboardSite): void {
  const origin = ctx.get('origin');
  const expected = site.originFor(ctx.host);
  if (!origin) throw new CsrfFailedError('The Origin header is missing; state-changing calls must come from the dashboard');
  if (origin !== expected) throw new CsrfFailedError(`Origin ${origin.slice(0, 200)} is not the dashboard's (${expected})`);
  const token = ctx.get('x-csrf-token');
  if (!token) throw new CsrfFailedError('The X-CSRF-Token header is missing; send the csrf_token from GET /dashboard/session');
  if (!sameToken(token, session.csrfToken)) throw new CsrfFailedError('The X-CSRF-Token header does not match this session');
}
