import type { RouterMiddleware } from '@koa/router';
import type { PlatformDeps } from '../platformDeps.js';
import type { AppState } from '../http/context.js';
import { ApiError, ValidationError } from '../errors.js';
import { consumeAddressPool } from '../rateLimit/addressLimits.js';
import { API_KEY_SHAPE } from './apiKeyFormat.js';
import type { ApiKeyRecord } from './apiKeys.js';
import { InvalidTokenError, IpNotAllowedError, NotAuthenticatedError } from './errors.js';
import { addressAllowed } from './keyRestrictions.js';
import { clientAddress } from '../http/clientAddress.js';
import type { Principal } from './principal.js';
import { recordRequestPrincipal } from './requestPrincipal.js';
import { sessionToken, type SessionToken } from './sessionPrincipals.js';
import { isScope } from './scopes.js';

const BEARER = /^Bearer\s+(\S+)\s*$/i;
const BASIC = /^Basic\s+([A-Za-z0-9+/=]+)\s*$/i;
const JWT_SHAPE = /^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]*$/;

/**
 * Unknown and deleted keys are answered from a short miss cache (src/auth/apiKeyMisses.ts).
 * `hash`: the key's keyed hash (ApiKeyVerifier.hashOf), undefined for a look-alike.
 */
async function verifyApiKey(deps: PlatformDeps, hash: string | undefined): ReturnType<PlatformDeps['apiKeys']['verify']> {
  if (!hash) throw new InvalidTokenError('The API key is malformed');
  const miss = deps.keyMisses.lookup(hash);
  if (miss) throw miss;
  const startedAt = deps.keyMisses.begin();
  try {
    return await deps.apiKeys.verifyHash(hash);
  } catch (err) {
    if (err instanceof InvalidTokenError) deps.keyMisses.remember(hash, err, startedAt);
    throw err;
  }
}

/** One principal per cached key record: requests answered from memory share it (nothing mutates one). */
const keyPrincipals = new WeakMap<ApiKeyRecord, Principal>();

async function principalFromApiKey(deps: PlatformDeps, hash: string | undefined): Promise<Principal> {
  const { record, user } = await verifyApiKey(deps, hash);
  const known = keyPrincipals.get(record);
  if (known?.user === user) return known;
  const principal: Principal = {
    user,
    type: 'api_key',
    keyId: record.id,
    mode: record.mode,
    livemode: record.mode === 'live',
    scopes: new Set(record.scopes.filter(isScope)),
    rateLimitSubject: `key:${record.id}`,
    credential: `api_key:${record.id}`,
    guards: {
      monthlySpendLimit: record.monthlySpendLimit,
      allowedIps: record.allowedIps,
      allowedDomains: record.allowedDomains,
      allowedRecords: record.allowedRecords,
    },
  };
  keyPrincipals.set(record, principal);
  return principal;
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

/** The bearer token, by shape: an API key or a JWT (each with its cache hash, computed once), or neither. */
type Credential =
  | { kind: 'none' | 'unknown' }
  | { kind: 'malformed'; detail: string }
  | { kind: 'api_key'; hash: string | undefined }
  | { kind: 'session'; session: SessionToken };

/**
 * The password of `Authorization: Basic base64(user:password)`, whatever the user name; undefined
 * when the header is not Basic or does not decode to `user:password`.
 */
function basicPassword(header: string): string | undefined {
  const encoded = BASIC.exec(header)?.[1];
  if (!encoded) return undefined;
  const decoded = Buffer.from(encoded, 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  return colon < 0 ? undefined : decoded.slice(colon + 1);
}

/** `basic`: the route also takes HTTP Basic whose password is an API key (src/http/route.ts). */
function credentialOf(deps: PlatformDeps, header: string, basic: boolean): Credential {
  if (!header) return { kind: 'none' };
  if (basic && BASIC.test(header)) {
    const password = basicPassword(header);
    if (password !== undefined && API_KEY_SHAPE.test(password)) return { kind: 'api_key', hash: deps.apiKeys.hashOf(password) };
    return { kind: 'malformed', detail: 'With HTTP Basic, the password must be an API key (svc_live_… or svc_test_…); the user name may be anything' };
  }
  const token = BEARER.exec(header)?.[1];
  if (!token) {
    return { kind: 'malformed', detail: basic ? 'The Authorization header must be "Bearer <token>", or Basic with an API key as the password' : 'The Authorization header must be "Bearer <token>"' };
  }
  if (API_KEY_SHAPE.test(token)) return { kind: 'api_key', hash: deps.apiKeys.hashOf(token) };
  if (JWT_SHAPE.test(token)) return { kind: 'session', session: sessionToken(token) };
  return { kind: 'unknown' };
}

async function principalFrom(deps: PlatformDeps, credential: Credential): Promise<Principal> {
  switch (credential.kind) {
    case 'none':
      throw new NotAuthenticatedError();
    case 'malformed':
      throw new InvalidTokenError(credential.detail);
    case 'api_key':
      return principalFromApiKey(deps, credential.hash);
    case 'session':
      return deps.sessions.get(credential.session);
    default:
      throw new InvalidTokenError('The bearer token is neither an API key nor a session token');
  }
}

/**
 * Who a request's `Authorization` and `X-Mode` name now, decided as authenticate() decides it, for a
 * response that outlives its request's checks (an event stream checks its caller again as it goes).
 */
export async function currentPrincipal(deps: PlatformDeps, authorization: string, xMode: string | undefined): Promise<Principal> {
  return applyRequestedMode(await principalFrom(deps, credentialOf(deps, authorization, false)), xMode);
}

/**
 * The verifier is chosen from the token's shape; the caller does not choose. The credential is
 * checked first, so one that verifies is never refused for what others did from its address (the
 * rate limiter then counts it on its own pools). Every 401 counts against the client address's
 * `auth_failure` pool, and past it the failure is answered 429 instead (src/rateLimit/addressLimits.ts).
 * Refusing costs no more than checking: a forged key reaches the database only when its checksum
 * holds and it is not in the miss cache (src/auth/apiKeyMisses.ts). With `basic`, an API key sent as
 * an HTTP Basic password is the same credential, checked and counted the same way.
 */
export function authenticate(deps: PlatformDeps, options: { basic: boolean } = { basic: false }): RouterMiddleware<AppState> {
  return async (ctx, next) => {
    try {
      const principal = await principalFrom(deps, credentialOf(deps, ctx.get('authorization'), options.basic));
      recordRequestPrincipal(ctx.state, applyRequestedMode(principal, ctx.req.headers['x-mode'] === undefined ? undefined : ctx.get('x-mode')));
      const address = clientAddress(ctx, deps.config.trustProxy);
      if (!addressAllowed(principal.guards?.allowedIps ?? [], address)) throw new IpNotAllowedError(address);
    } catch (err) {
      if (err instanceof ApiError && err.status === 401) await consumeAddressPool(deps, ctx, 'auth_failure');
      throw err;
    }
    await next();
  };
}
