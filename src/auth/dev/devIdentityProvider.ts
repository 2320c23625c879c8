import { exportJWK, generateKeyPair, importJWK, SignJWT, type JWK } from 'jose';
import { randomBase62 } from '../../ids.js';
import { readOrCreateDataDirFile } from '../../dataDir.js';

/**
 * The development identity provider: stands in for the external one when `AUTH_ISSUER` is unset
 * outside production. It signs session JWTs with an ES256 key kept in DATA_DIR and publishes the
 * public half as a JWKS, so tokens are verified exactly as real ones are. `npm run token` signs
 * with issuer DEV_ISSUER; the OpenID provider the api mounts (src/auth/dev/oidcProvider.ts) signs
 * with the same key under its own issuer URL, which it adds with `trustIssuer` once it is known.
 */
export const DEV_ISSUER = 'urn:domain-service:dev-idp';
export const DEV_AUDIENCE = 'domain-service';
const ALG = 'ES256';

interface StoredKey {
  kid: string;
  privateJwk: JWK;
  publicJwk: JWK;
}

export interface DevIdentityProvider {
  issuer: string;
  audience: string;
  jwks(): { keys: JWK[] };
  /** The private signing key, for the development OpenID provider. */
  signingJwk(): JWK;
  /** Every issuer whose tokens the session verifier accepts: DEV_ISSUER and the OpenID provider's. */
  issuers(): string[];
  trustIssuer(issuer: string): void;
  /** The OpenID provider's issuer once the api mounts it (trustIssuer), for clients that discover it. */
  openIdIssuer(): string | undefined;
  /**
   * `email_verified` is true unless `emailVerified` says otherwise (null leaves the claim out, as some
   * providers do): this provider has no mail check, so the address given is the one it vouches for.
   */
  issueToken(props: { email: string; name?: string; ttlSeconds?: number; emailVerified?: boolean | null }): Promise<string>;
}

/** The development provider's signing key, in the data directory. */
export const DEV_SIGNING_KEY_FILE = 'dev-idp-signing-key.json';

async function loadOrCreateKey(dataDir: string): Promise<StoredKey> {
  // The api and the worker may start together on one data dir: one key wins for both.
  const text = await readOrCreateDataDirFile(dataDir, DEV_SIGNING_KEY_FILE, async () => {
    const { privateKey, publicKey } = await generateKeyPair(ALG, { extractable: true });
    const kid = `dev-${randomBase62(8)}`;
    const stored: StoredKey = {
      kid,
      privateJwk: { ...(await exportJWK(privateKey)), kid, alg: ALG },
      publicJwk: { ...(await exportJWK(publicKey)), kid, alg: ALG, use: 'sig' },
    };
    return JSON.stringify(stored, null, 2);
  });
  return JSON.parse(text) as StoredKey;
}

export async function loadDevIdentityProvider(dataDir: string): Promise<DevIdentityProvider> {
  const stored = await loadOrCreateKey(dataDir);
  const privateKey = await importJWK(stored.privateJwk, ALG);
  const issuers = new Set([DEV_ISSUER]);
  let openIdIssuer: string | undefined;
  return {
    issuer: DEV_ISSUER,
    audience: DEV_AUDIENCE,
    jwks: () => ({ keys: [stored.publicJwk] }),
    signingJwk: () => ({ ...stored.privateJwk, use: 'sig' }),
    issuers: () => [...issuers],
    trustIssuer: (issuer) => {
      issuers.add(issuer);
      openIdIssuer = issuer;
    },
    openIdIssuer: () => openIdIssuer,
    issueToken: async ({ email, name, ttlSeconds = 12 * 3600, emailVerified = true }) =>
      new SignJWT({
        email,
        name: name ?? email.split('@')[0],
        sid: `sess_${randomBase62(16)}`,
        ...(emailVerified === null ? {} : { email_verified: emailVerified }),
      })
        .setProtectedHeader({ alg: ALG, kid: stored.kid, typ: 'JWT' })
        .setSubject(`dev|${email.toLowerCase()}`)
        .setIssuer(DEV_ISSUER)
        .setAudience(DEV_AUDIENCE)
        .setIssuedAt()
        .setExpirationTime(`${ttlSeconds}s`)
        .sign(privateKey),
  };
}
