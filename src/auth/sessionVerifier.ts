import { createLocalJWKSet, createRemoteJWKSet, errors, jwtVerify, type JWTPayload } from 'jose';
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
}

export type SessionVerifier = (token: string) => Promise<SessionClaims>;

function optionalString(payload: JWTPayload, claim: string): string | null {
  const value = payload[claim];
  return typeof value === 'string' && value.length > 0 ? value : null;
}

/** Verifies session JWTs against the external provider's JWKS, or the development provider's keys. */
export function createSessionVerifier(config: Pick<Config, 'auth'>, devIdentity: DevIdentityProvider | undefined): SessionVerifier {
  const { keys, issuer, audience } = config.auth
    ? {
        keys: createRemoteJWKSet(new URL(config.auth.jwksUrl), { timeoutDuration: 5_000, cooldownDuration: 30_000 }),
        issuer: config.auth.issuer,
        audience: config.auth.audience,
      }
    : { keys: createLocalJWKSet(devIdentity!.jwks()), issuer: devIdentity!.issuer, audience: devIdentity!.audience };

  return async (token) => {
    try {
      const { payload } = await jwtVerify(token, keys, {
        issuer,
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
