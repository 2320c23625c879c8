import type { RouterMiddleware } from '@koa/router';
import type { AppDeps } from '../deps.js';
import type { AppState } from '../http/context.js';
import { ApiError, ValidationError } from '../errors.js';
import { findUserBySubject, upsertUserBySubject } from '../db/repositories/users.js';
import { consumeAddressPool, refuseBlockedAddress } from '../rateLimit/addressLimits.js';
import { API_KEY_SHAPE, hashApiKey, parseApiKey } from './apiKeyFormat.js';
import { InvalidTokenError, IpNotAllowedError, NotAuthenticatedError } from './errors.js';
import { addressAllowed } from './keyRestrictions.js';
import { clientAddress } from '../http/clientAddress.js';
import type { Principal } from './principal.js';
import { isScope, SCOPES, type Scope } from './scopes.js';

const BEARER = /^Bearer\s+(\S+)\s*$/i;
const JWT_SHAPE = /^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]*$/;
const ALL_SCOPES: ReadonlySet<Scope> = new Set(SCOPES);

/** Unknown and deleted keys are answered from a short miss cache (src/auth/apiKeyMisses.ts). */
async function verifyApiKey(deps: AppDeps, token: string): ReturnType<AppDeps['apiKeys']['verify']> {
  if (!parseApiKey(token)) return deps.apiKeys.verify(token);
  const hash = hashApiKey(deps.keyHashSecret, token).toString('hex');
  const miss = deps.keyMisses.lookup(hash);
  if (miss) throw miss;
  const startedAt = deps.keyMisses.begin();
  try {
    return await deps.apiKeys.verify(token);
  } catch (err) {
    if (err instanceof InvalidTokenError) deps.keyMisses.remember(hash, err, startedAt);
    throw err;
  }
}

async function principalFromApiKey(deps: AppDeps, token: string): Promise<Principal> {
  const { record, user } = await verifyApiKey(deps, token);
  return {
    user,
    type: 'api_key',
    keyId: record.id,
    mode: record.mode,
    livemode: record.mode === 'live',
    scopes: new Set(record.scopes.filter(isScope)),
    rateLimitSubject: `key:${record.id}`,
    credential: `api_key:${record.id}`,
    guards: { monthlySpendLimit: record.monthlySpendLimit, allowedIps: record.allowedIps, allowedDomains: record.allowedDomains },
  };
}

async function principalFromSession(deps: AppDeps, token: string): Promise<Principal> {
  const claims = await deps.verifySession(token);
  // A read on the hot path; a write only for a new user or changed claims.
  const known = await findUserBySubject(deps.db, claims.sub);
  const user =
    known && known.email === claims.email && known.name === claims.name && known.emailVerified === claims.emailVerified
      ? known
      : await upsertUserBySubject(deps.db, {
          subject: claims.sub,
          email: claims.email,
          name: claims.name,
          emailVerified: claims.emailVerified,
        });
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

/**
 * `X-Mode`: a session sending `test` acts in test mode (the dashboard's "test data" toggle); a key
 * may only name its own mode. Anything else is a 422 on the header.
 */
function applyRequestedMode(principal: Principal, requested: string | undefined): Principal {
  if (requested === undefined) return principal;
  const invalid = (msg: string) =>
    new ValidationError([{ loc: ['header', 'x-mode'], msg, type: 'x_mode_invalid' }]);
  if (requested !== 'live' && requested !== 'test') throw invalid('Must be "live" or "test"');
  if (principal.type === 'api_key') {
    if (requested !== principal.mode) throw invalid(`This API key is a ${principal.mode}-mode key; X-Mode cannot change that`);
    return principal;
  }
  return { ...principal, mode: requested, livemode: requested === 'live' };
}

async function principalFrom(deps: AppDeps, header: string): Promise<Principal> {
  if (!header) throw new NotAuthenticatedError();
  const token = BEARER.exec(header)?.[1];
  if (!token) throw new InvalidTokenError('The Authorization header must be "Bearer <token>"');
  if (API_KEY_SHAPE.test(token)) return principalFromApiKey(deps, token);
  if (JWT_SHAPE.test(token)) return principalFromSession(deps, token);
  throw new InvalidTokenError('The bearer token is neither an API key nor a session token');
}

/**
 * The verifier is chosen from the token's shape; the caller does not choose. Every 401 counts
 * against the client address's `auth_failure` pool; past it the answer is 429, and until its block
 * ends the address is refused before any token is checked (src/rateLimit/addressLimits.ts).
 */
export function authenticate(deps: AppDeps): RouterMiddleware<AppState> {
  return async (ctx, next) => {
    await refuseBlockedAddress(deps, ctx);
    try {
      const principal = await principalFrom(deps, ctx.get('authorization'));
      ctx.state.auth = applyRequestedMode(principal, ctx.req.headers['x-mode'] === undefined ? undefined : ctx.get('x-mode'));
      const address = clientAddress(ctx, deps.config.trustProxy);
      if (!addressAllowed(principal.guards?.allowedIps ?? [], address)) throw new IpNotAllowedError(address);
    } catch (err) {
      if (err instanceof ApiError && err.status === 401) await consumeAddressPool(deps, ctx, 'auth_failure');
      throw err;
    }
    await next();
  };
}
