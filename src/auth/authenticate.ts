import type { RouterMiddleware } from '@koa/router';
import type { AppDeps } from '../deps.js';
import type { AppState } from '../http/context.js';
import { findUserBySubject, upsertUserBySubject } from '../db/repositories/users.js';
import { API_KEY_SHAPE } from './apiKeyFormat.js';
import { InvalidTokenError, NotAuthenticatedError } from './errors.js';
import type { Principal } from './principal.js';
import { isScope, SCOPES, type Scope } from './scopes.js';

const BEARER = /^Bearer\s+(\S+)\s*$/i;
const JWT_SHAPE = /^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]*$/;
const ALL_SCOPES: ReadonlySet<Scope> = new Set(SCOPES);

async function principalFromApiKey(deps: AppDeps, token: string): Promise<Principal> {
  const { record, user } = await deps.apiKeys.verify(token);
  return {
    user,
    type: 'api_key',
    keyId: record.id,
    mode: record.mode,
    livemode: record.mode === 'live',
    scopes: new Set(record.scopes.filter(isScope)),
    rateLimitSubject: `key:${record.id}`,
    credential: `api_key:${record.id}`,
  };
}

async function principalFromSession(deps: AppDeps, token: string): Promise<Principal> {
  const claims = await deps.verifySession(token);
  // A read on the hot path; a write only for a new user or changed claims.
  const known = await findUserBySubject(deps.db, claims.sub);
  const user =
    known && known.email === claims.email && known.name === claims.name
      ? known
      : await upsertUserBySubject(deps.db, { subject: claims.sub, email: claims.email, name: claims.name });
  return {
    user,
    type: 'session',
    keyId: undefined,
    mode: 'live',
    livemode: true,
    scopes: ALL_SCOPES,
    rateLimitSubject: `session:${claims.sid ?? claims.sub}`,
    credential: `session:${user.id}:${claims.sid ?? claims.sub}`,
  };
}

/** The verifier is chosen from the token's shape; the caller does not choose. */
export function authenticate(deps: AppDeps): RouterMiddleware<AppState> {
  return async (ctx, next) => {
    const header = ctx.get('authorization');
    if (!header) throw new NotAuthenticatedError();
    const token = BEARER.exec(header)?.[1];
    if (!token) throw new InvalidTokenError('The Authorization header must be "Bearer <token>"');
    if (API_KEY_SHAPE.test(token)) ctx.state.auth = await principalFromApiKey(deps, token);
    else if (JWT_SHAPE.test(token)) ctx.state.auth = await principalFromSession(deps, token);
    else throw new InvalidTokenError('The bearer token is neither an API key nor a session token');
    await next();
  };
}
