import type * as Oidc from 'openid-client';
import type { DomainClient } from '../../client/src/index.js';
import { CliError } from './errors.js';
import { isLoopback } from './loopback.js';
import type { StoredLogin } from './store.js';


/** Loaded when a command signs in or refreshes: most commands never need it (the command line starts faster). */
const openIdClient = () => import('openid-client');

/** The provider's endpoints, from its OpenID discovery document. */
export async function providerConfig(issuer: string, clientId: string): Promise<Oidc.Configuration> {
  const oidc = await openIdClient();
  const url = new URL(issuer);
  const insecure = url.protocol === 'http:' && isLoopback(url);
  return oidc.discovery(url, clientId, undefined, oidc.None(), { ...(insecure ? { execute: [oidc.allowInsecureRequests] } : {}), timeout: 10 });
}

function stored(settings: { issuer: string; client_id: string }, tokens: Oidc.TokenEndpointResponse & Oidc.TokenEndpointResponseHelpers, previous?: StoredLogin): StoredLogin {
  const expiresIn = tokens.expiresIn();
  const email = tokens.claims()?.email;
  return {
    issuer: settings.issuer,
    client_id: settings.client_id,
    access_token: tokens.access_token,
    // A provider that does not rotate refresh tokens keeps the one we had.
    refresh_token: tokens.refresh_token ?? previous?.refresh_token,
    expires_at: expiresIn === undefined ? undefined : Date.now() + expiresIn * 1000,
    email: typeof email === 'string' ? email : previous?.email,
  };
}

export interface DeviceCode {
  verificationUri: string;
  verificationUriComplete: string | undefined;
  userCode: string;
  expiresInSeconds: number;
}

/**
 * The OAuth 2.0 device authorization grant (RFC 8628) against the API's identity provider, which the
 * API names (`GET /api/v1/sign-in/device`): a code for the person to enter in a browser anywhere,
 * then the token endpoint polled until they have (openid-client follows `interval` and `slow_down`).
 */
export async function deviceSignIn(api: DomainClient, show: (code: DeviceCode) => void, signal: AbortSignal): Promise<StoredLogin> {
  const oidc = await openIdClient();
  const settings = await api.getDeviceSignIn();
  const config = await providerConfig(settings.issuer, settings.client_id);
  const device = await oidc.initiateDeviceAuthorization(config, { scope: settings.scopes.join(' ') });
  show({
    verificationUri: device.verification_uri,
    verificationUriComplete: device.verification_uri_complete,
    userCode: device.user_code,
    expiresInSeconds: device.expires_in,
  });
  try {
    return stored(settings, await oidc.pollDeviceAuthorizationGrant(config, device, undefined, { signal }));
  } catch (err) {
    if (err instanceof oidc.ResponseBodyError && err.error === 'access_denied') throw new CliError('The sign-in was cancelled in the browser', 'unauthenticated', 'ACCESS_DENIED');
    if (err instanceof oidc.ResponseBodyError && err.error === 'expired_token') throw new CliError('The code expired before it was entered; run login again', 'unauthenticated', 'EXPIRED_TOKEN');
    throw err;
  }
}

/** A new access token from the refresh token; the sign-in is over when the provider refuses it. */
export async function refreshLogin(login: StoredLogin): Promise<StoredLogin> {
  if (!login.refresh_token) throw new CliError('The sign-in has expired: run `domain-service login`', 'unauthenticated', 'TOKEN_EXPIRED');
  const oidc = await openIdClient();
  const config = await providerConfig(login.issuer, login.client_id);
  try {
    return stored(login, await oidc.refreshTokenGrant(config, login.refresh_token), login);
  } catch (err) {
    if (err instanceof oidc.ResponseBodyError) throw new CliError('The sign-in has ended: run `domain-service login`', 'unauthenticated', 'TOKEN_EXPIRED');
    throw err;
  }
}

/** Tells the provider the refresh token is no longer wanted (best effort: logout forgets it anyway). */
export async function revokeLogin(login: StoredLogin): Promise<boolean> {
  if (!login.refresh_token) return false;
  try {
    const oidc = await openIdClient();
    const config = await providerConfig(login.issuer, login.client_id);
    if (!config.serverMetadata().revocation_endpoint) return false;
    await oidc.tokenRevocation(config, login.refresh_token, { token_type_hint: 'refresh_token' });
    return true;
  } catch {
    return false;
  }
}
