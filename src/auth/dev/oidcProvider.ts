import { randomBytes } from 'node:crypto';
import type Provider from 'oidc-provider';
import type { Configuration } from 'oidc-provider';
import type { Redis } from 'ioredis';
import type { DevIdentityProvider } from './devIdentityProvider.js';
import { DevOidcRedisAdapter, type DevAccounts } from './oidcRedisAdapter.js';
import { successSource, userCodeConfirmSource, userCodeInputSource } from './devicePages.js';

/** Where the api mounts the development OpenID provider; its issuer is the api's origin plus this. */
export const DEV_OIDC_PATH = '/dev/oidc';

/** The `sub` that `npm run token` gives the same address: one user, whichever way they sign in. */
export const devAccountId = (email: string) => `dev|${email.toLowerCase()}`;

export interface DevOidcProps {
  devIdentity: DevIdentityProvider;
  /** The api's origin, e.g. `http://127.0.0.1:8080`. */
  apiOrigin: string;
  client: { id: string; secret: string | undefined };
  /** The command line's public client (device authorization grant); absent: no device sign-in. */
  deviceClientId: string | undefined;
  /** The dashboard's callback on every origin it may be opened at. */
  redirectUris: string[];
  accounts: DevAccounts;
  redis: Redis;
}

const ACCESS_TOKEN_TTL_SECONDS = 3600;

/**
 * The development identity provider as a real OpenID provider (authorization code + PKCE for the
 * dashboard, the device authorization grant for the command line), built on
 * oidc-provider. Its access tokens are JWTs signed with the development key for audience
 * DEV_AUDIENCE, carrying `email` (asserted verified), `name` and a `sid` per sign-in, so the API verifies them as it
 * verifies `npm run token` tokens. It asks for an e-mail and a name at every sign-in
 * (src/auth/dev/oidcInteractions.ts) and keeps its state in Redis (src/auth/dev/oidcRedisAdapter.ts).
 */
export const devOidcIssuer = (apiOrigin: string) => `${apiOrigin}${DEV_OIDC_PATH}`;

/**
 * Loaded on the first request to DEV_OIDC_PATH: processes with an external provider never load
 * oidc-provider. The session verifier trusts the issuer from the start (src/dashboard/index.ts).
 */
export async function createDevOidcProvider(props: DevOidcProps): Promise<Provider> {
  const { default: OidcProvider, errors, interactionPolicy } = await import('oidc-provider');
  const issuer = devOidcIssuer(props.apiOrigin);
  const apiResource = `${props.apiOrigin}/api/v1`;
  const policy = interactionPolicy.base();
  policy.get('login')!.checks.add(
    new interactionPolicy.Check('dev_sign_in_each_time', 'the development provider asks who you are at every sign-in', (ctx) =>
      ctx.oidc.result?.login ? interactionPolicy.Check.NO_NEED_TO_PROMPT : interactionPolicy.Check.REQUEST_PROMPT,
    ),
  );
  const configuration: Configuration = {
    clients: [
      {
        client_id: props.client.id,
        ...(props.client.secret ? { client_secret: props.client.secret } : { token_endpoint_auth_method: 'none' }),
        redirect_uris: props.redirectUris,
        grant_types: ['authorization_code', 'refresh_token'],
        response_types: ['code'],
        id_token_signed_response_alg: 'ES256',
      },
      ...(props.deviceClientId
        ? [
            {
              client_id: props.deviceClientId,
              client_name: 'The domain-service command line',
              token_endpoint_auth_method: 'none' as const,
              grant_types: ['urn:ietf:params:oauth:grant-type:device_code', 'refresh_token'],
              response_types: [],
              redirect_uris: [],
              id_token_signed_response_alg: 'ES256' as const,
            },
          ]
        : []),
    ],
    jwks: { keys: [props.devIdentity.signingJwk()] },
    // Per process: signs the provider's own interaction and session cookies, which stay under its path.
    cookies: { keys: [randomBytes(32).toString('base64url')], long: { path: DEV_OIDC_PATH } },
    pkce: { required: () => true },
    claims: { openid: ['sub'], email: ['email', 'email_verified'], profile: ['name'] },
    // The dashboard reads the user's e-mail and name from the ID token.
    conformIdTokenClaims: false,
    scopes: ['openid', 'email', 'profile', 'offline_access'],
    features: {
      devInteractions: { enabled: false },
      // RFC 8628 for the command line (`domain-service login`), with pages of our own (devicePages.ts).
      deviceFlow: { enabled: true, charset: 'base-20', mask: '****-****', userCodeInputSource, userCodeConfirmSource, successSource },
      // A client may revoke only what was issued to it.
      revocation: { enabled: true, allowedPolicy: (_ctx, client, token) => token.clientId === client.clientId },
      resourceIndicators: {
        enabled: true,
        defaultResource: () => apiResource,
        useGrantedResource: () => true,
        getResourceServerInfo: (_ctx, resource) => {
          if (resource !== apiResource) throw new errors.InvalidTarget();
          return {
            scope: '',
            audience: props.devIdentity.audience,
            accessTokenTTL: ACCESS_TOKEN_TTL_SECONDS,
            accessTokenFormat: 'jwt',
            jwt: { sign: { alg: 'ES256' } },
          };
        },
      },
    },
    issueRefreshToken: (_ctx, client) => client.grantTypeAllowed('refresh_token'),
    // Every refresh rotates, as many providers do: a refresh token used twice revokes the grant.
    rotateRefreshToken: () => true,
    adapter: (model: string) => new DevOidcRedisAdapter(model, props.redis),
    extraTokenClaims: async (_ctx, token) => {
      if (!('accountId' in token)) return undefined;
      const account = await props.accounts.find(token.accountId);
      // A grant per sign-in (oidcInteractions.ts), so the API counts rate limits per dashboard session.
      // The address typed into the development form is the one this provider vouches for (no mail check).
      return { email: account.email, email_verified: true, name: account.name, sid: `sess_${token.grantId}` };
    },
    findAccount: (_ctx, accountId) => ({
      accountId,
      claims: async () => {
        const account = await props.accounts.find(accountId);
        return { sub: accountId, email: account.email, email_verified: true, name: account.name };
      },
    }),
    interactions: { policy, url: (_ctx, interaction) => `${DEV_OIDC_PATH}/interaction/${interaction.uid}` },
    ttl: { AccessToken: ACCESS_TOKEN_TTL_SECONDS, IdToken: ACCESS_TOKEN_TTL_SECONDS, Interaction: 600, DeviceCode: 600, Session: 14 * 86_400, Grant: 14 * 86_400, RefreshToken: 14 * 86_400 },
    renderError: (ctx, out) => {
      ctx.type = 'text/plain; charset=utf-8';
      ctx.body = `Development sign-in failed: ${out.error}${out.error_description ? ` (${out.error_description})` : ''}`;
    },
  };
  return new OidcProvider(issuer, configuration);
}
