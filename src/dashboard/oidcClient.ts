import * as oidc from 'openid-client';
import { isLoopbackHost } from '../http/loopback.js';
import { ServiceUnavailableError } from '../errors.js';
import type { DashboardUser, SessionTokens } from './sessions.js';

/** What a sign-in keeps server-side between the redirect to the provider and its callback. */
export interface PendingSignIn {
  codeVerifier: string;
  state: string;
  nonce: string;
  redirectUri: string;
}

export interface SignedIn {
  user: DashboardUser;
  tokens: SessionTokens;
}

/** The provider answered with an OAuth error, or its answer failed a check: sign in again. */
export class SignInRejectedError extends Error {
  override name = 'SignInRejectedError';
}

const WANTED_SCOPES = ['openid', 'email', 'profile', 'offline_access'];

function unavailable(cause: unknown): ServiceUnavailableError {
  const error = new ServiceUnavailableError('AUTH_PROVIDER_UNAVAILABLE', 'The identity provider could not be reached; retry', 5);
  error.cause = cause;
  return error;
}

/** OAuth errors and failed checks are the user's to retry; anything else is the provider being away. */
function classify(err: unknown): Error {
  if (err instanceof oidc.ResponseBodyError || err instanceof oidc.AuthorizationResponseError || err instanceof oidc.ClientError) {
    return new SignInRejectedError(err.message, { cause: err });
  }
  return unavailable(err);
}

function tokensFrom(response: oidc.TokenEndpointResponse & oidc.TokenEndpointResponseHelpers, previous?: SessionTokens): SessionTokens {
  const expiresIn = response.expiresIn();
  return {
    accessToken: response.access_token,
    // A refresh that does not rotate the refresh token keeps the one we have.
    refreshToken: response.refresh_token ?? previous?.refreshToken,
    accessTokenExpiresAt: expiresIn === undefined ? undefined : Date.now() + expiresIn * 1000,
  };
}

/**
 * The dashboard as an OpenID Connect client (openid-client): authorization code with PKCE against
 * the provider found by discovery at `issuer`. Discovery runs on first use and is retried after a
 * failure, so the api starts while the provider is away (and the development provider, which this
 * same process serves, is discovered once the api listens).
 */
export class DashboardOidcClient {
  private configuration: Promise<oidc.Configuration> | undefined;

  constructor(private readonly props: { issuer: string; client: { id: string; secret: string | undefined } }) {}

  private config(): Promise<oidc.Configuration> {
    if (!this.configuration) {
      const { issuer, client } = this.props;
      const url = new URL(issuer);
      // Plain HTTP only on loopback: the development provider, or a provider in a test.
      const insecure = url.protocol === 'http:' && isLoopbackHost(url.hostname);
      this.configuration = oidc
        .discovery(url, client.id, client.secret, client.secret ? oidc.ClientSecretBasic(client.secret) : oidc.None(), {
          ...(insecure ? { execute: [oidc.allowInsecureRequests] } : {}),
          timeout: 5,
        })
        .catch((err: unknown) => {
          this.configuration = undefined;
          throw unavailable(err);
        });
    }
    return this.configuration;
  }

  /** Where to send the browser, and what its callback must match. */
  async startSignIn(redirectUri: string): Promise<{ url: string; pending: PendingSignIn }> {
    const config = await this.config();
    const supported = config.serverMetadata().scopes_supported;
    const scope = WANTED_SCOPES.filter((s) => s === 'openid' || !supported || supported.includes(s)).join(' ');
    const pending: PendingSignIn = { codeVerifier: oidc.randomPKCECodeVerifier(), state: oidc.randomState(), nonce: oidc.randomNonce(), redirectUri };
    const url = oidc.buildAuthorizationUrl(config, {
      redirect_uri: redirectUri,
      scope,
      code_challenge: await oidc.calculatePKCECodeChallenge(pending.codeVerifier),
      code_challenge_method: 'S256',
      state: pending.state,
      nonce: pending.nonce,
    });
    return { url: url.href, pending };
  }

  /** Exchanges the callback's code; the user is read from the verified ID token. */
  async finishSignIn(callbackUrl: URL, pending: PendingSignIn): Promise<SignedIn> {
    const config = await this.config();
    try {
      const response = await oidc.authorizationCodeGrant(
        config,
        callbackUrl,
        { pkceCodeVerifier: pending.codeVerifier, expectedState: pending.state, expectedNonce: pending.nonce, idTokenExpected: true },
        { redirect_uri: pending.redirectUri },
      );
      const claims = response.claims();
      const text = (value: unknown) => (typeof value === 'string' && value.length > 0 ? value : null);
      return { user: { email: text(claims?.email), name: text(claims?.name) }, tokens: tokensFrom(response) };
    } catch (err) {
      throw classify(err);
    }
  }

  async refresh(tokens: SessionTokens): Promise<SessionTokens> {
    if (!tokens.refreshToken) throw new SignInRejectedError('no refresh token');
    const config = await this.config();
    try {
      return tokensFrom(await oidc.refreshTokenGrant(config, tokens.refreshToken), tokens);
    } catch (err) {
      throw classify(err);
    }
  }

  /** Best effort at sign-out: tells the provider the refresh token is no longer wanted. */
  async revoke(tokens: SessionTokens): Promise<void> {
    const config = await this.config();
    if (!config.serverMetadata().revocation_endpoint || !tokens.refreshToken) return;
    await oidc.tokenRevocation(config, tokens.refreshToken, { token_type_hint: 'refresh_token' });
  }
}
