import { createLocalJWKSet, createRemoteJWKSet, errors, jwtVerify, type JWTPayload, type JWTVerifyGetKey } from 'jose';
import type { Config } from '../config.js';
import type { DevIdentityProvider } from './dev/devIdentityProvider.js';
import { InvalidTokenError, TokenExpiredError } from './errors.js';
import { ServiceUnavailableError } from '../errors.js';

/** Accepted signing algorithms; anything else (including `none` and HMAC) is refused. */
export const SESSION_ALGORITHMS = ['RS256', 'ES256', 'EdDSA'];

export interface SessionClaims {
  sub: string;
  email: string | null;
  name: string | null;
  sid: string | null;
  /** `email_verified` when the provider sends it (OpenID Connect standard claim), else null. */
  emailVerified: boolean | null;
  /** `exp`, in milliseconds since the epoch. */
  expiresAtMs: number;
}

export type SessionVerifier = (token: string) => Promise<SessionClaims>;

function optionalString(payload: JWTPayload, claim: string): string | null {
  const value = payload[claim];
  return typeof value === 'string' && value.length > 0 ? value : null;
}

/**
 * The provider's key set: at AUTH_JWKS_URL, or at the `jwks_uri` its OpenID discovery document
 * names (fetched once; a failed fetch is retried on the next request).
 */
function remoteKeys(auth: NonNullable<Config['auth']>): JWTVerifyGetKey {
  const fromUrl = (url: string) => createRemoteJWKSet(new URL(url), { timeoutDuration: 5_000, cooldownDuration: 30_000 });
  if (auth.jwksUrl) return fromUrl(auth.jwksUrl);
  let discovered: Promise<JWTVerifyGetKey> | undefined;
  return async (header, token) => {
    discovered ??= discoverJwksUri(auth.issuer).then(fromUrl);
    discovered.catch(() => (discovered = undefined));
    return (await discovered)(header, token);
  };
}

async function discoverJwksUri(issuer: string): Promise<string> {
  const url = `${issuer.replace(/\/$/, '')}/.well-known/openid-configuration`;
  const unavailable = (why: string) =>
    new ServiceUnavailableError('AUTH_PROVIDER_UNAVAILABLE', `The identity provider's discovery document could not be read (${why}); retry`, 5);
  let metadata: { issuer?: unknown; jwks_uri?: unknown };
  try {
    const res = await fetch(url, { signal: AbortSignal.timeout(5_000), headers: { accept: 'application/json' } });
    if (!res.ok) throw unavailable(`status ${res.status}`);
    metadata = (await res.json()) as typeof metadata;
  } catch (err) {
    throw err instanceof ServiceUnavailableError ? err : unavailable(err instanceof Error ? err.name : 'unreadable');
  }
  if (metadata.issuer !== issuer || typeof metadata.jwks_uri !== 'string') throw unavailable('issuer or jwks_uri does not match');
  return metadata.jwks_uri;
}

/** Verifies session JWTs against the external provider's JWKS, or the development provider's keys. */
export function createSessionVerifier(config: Pick<Config, 'auth'>, devIdentity: DevIdentityProvider | undefined): SessionVerifier {
  const { keys, issuer, audience } = config.auth
    ? { keys: remoteKeys(config.auth), issuer: () => config.auth!.issuer, audience: config.auth.audience }
    : { keys: createLocalJWKSet(devIdentity!.jwks()), issuer: () => devIdentity!.issuers(), audience: devIdentity!.audience };

  return async (token) => {
    try {
      const { payload } = await jwtVerify(token, keys, {
        issuer: issuer(),
        audience,
        algorithms: SESSION_ALGORITHMS,
        requiredClaims: ['exp', 'sub'],
        clockTolerance: 5,
      });
      return {
        sub: payload.sub!,
        email: optionalString(payload, 'email'),
        name: optionalString(payload, 'name'),
        sid: optionalString(payload, 'sid'),
        emailVerified: typeof payload.email_verified === 'boolean' ? payload.email_verified : null,
        expiresAtMs: payload.exp! * 1000,
      };
    } catch (err) {
      if (err instanceof errors.JWTExpired) throw new TokenExpiredError();
      if (err instanceof errors.JWKSTimeout || (err instanceof TypeError && !(err instanceof errors.JOSEError))) {
        throw new ServiceUnavailableError('AUTH_PROVIDER_UNAVAILABLE', 'The identity provider could not be reached; retry', 5);
      }
      if (err instanceof errors.JOSEError) throw new InvalidTokenError(`The session token is not valid (${err.code})`);
      throw err;
    }
  };
}
