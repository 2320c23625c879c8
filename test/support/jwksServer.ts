import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { exportJWK, generateKeyPair, SignJWT, type CryptoKey, type JWK } from 'jose';

/**
 * An external identity provider on loopback: publishes a JWKS (RS256 and EdDSA keys) and signs
 * tokens, including the broken ones the tests need (unknown signer, expired, wrong issuer, …).
 */
export interface JwksServer {
  jwksUrl: string;
  issuer: string;
  audience: string;
  /** How many times the JWKS was fetched. */
  fetches(): number;
  sign(props?: SignProps): Promise<string>;
  close(): Promise<void>;
}

export interface SignProps {
  sub?: string;
  email?: string;
  name?: string;
  sid?: string;
  alg?: 'RS256' | 'EdDSA';
  /** Sign with a key the JWKS does not publish. */
  unknownSigner?: boolean;
  issuer?: string;
  audience?: string;
  /** Seconds from now; negative for an expired token. Undefined with `noExp` leaves `exp` out. */
  expiresIn?: number;
  noExp?: boolean;
}

interface SigningKey {
  kid: string;
  alg: 'RS256' | 'EdDSA';
  privateKey: CryptoKey;
  publicJwk: JWK;
}

async function signingKey(alg: 'RS256' | 'EdDSA', kid: string): Promise<SigningKey> {
  const { privateKey, publicKey } = await generateKeyPair(alg, { extractable: true });
  return { kid, alg, privateKey, publicJwk: { ...(await exportJWK(publicKey)), kid, alg, use: 'sig' } };
}

export async function startJwksServer(): Promise<JwksServer> {
  const published = [await signingKey('RS256', 'rs-1'), await signingKey('EdDSA', 'ed-1')];
  const rogue = await signingKey('RS256', 'rs-1');
  let fetches = 0;
  const server = http.createServer((req, res) => {
    if (req.url === '/.well-known/jwks.json') {
      fetches += 1;
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ keys: published.map((k) => k.publicJwk) }));
      return;
    }
    res.writeHead(404).end();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const issuer = `${base}/`;
  const audience = 'domain-service-test';
  return {
    jwksUrl: `${base}/.well-known/jwks.json`,
    issuer,
    audience,
    fetches: () => fetches,
    sign: async (props = {}) => {
      const alg = props.alg ?? 'RS256';
      const key = props.unknownSigner ? rogue : published.find((k) => k.alg === alg)!;
      const jwt = new SignJWT({
        ...(props.email !== undefined ? { email: props.email } : {}),
        ...(props.name !== undefined ? { name: props.name } : {}),
        ...(props.sid !== undefined ? { sid: props.sid } : {}),
      })
        .setProtectedHeader({ alg, kid: key.kid, typ: 'JWT' })
        .setSubject(props.sub ?? 'user-1')
        .setIssuer(props.issuer ?? issuer)
        .setAudience(props.audience ?? audience)
        .setIssuedAt();
      if (!props.noExp) jwt.setExpirationTime(Math.floor(Date.now() / 1000) + (props.expiresIn ?? 3600));
      return jwt.sign(key.privateKey);
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/** An unsigned token (`alg: none`), which every verifier must refuse. */
export function unsignedToken(payload: Record<string, unknown>): string {
  const encode = (value: object) => Buffer.from(JSON.stringify(value)).toString('base64url');
  return `${encode({ alg: 'none', typ: 'JWT' })}.${encode(payload)}.`;
}
