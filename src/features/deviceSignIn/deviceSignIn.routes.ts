import { z } from 'zod';
import { defineRoute } from '../../http/route.js';
import type { PlatformDeps } from '../../platformDeps.js';
import { NotFoundError } from '../../errors.js';

/** What the command line asks for: an e-mail and a name to show, and a refresh token to stay signed in. */
const SCOPES = ['openid', 'email', 'profile', 'offline_access'];

const DeviceSignInSchema = z
  .object({
    issuer: z.url().describe('The OpenID provider: its discovery document names the device authorization and token endpoints'),
    client_id: z.string().describe('The public client to sign in as (no secret)'),
    scopes: z.array(z.string()).describe('The scopes to ask for'),
  })
  .meta({
    id: 'DeviceSignIn',
    example: { issuer: 'https://login.example.com/', client_id: 'domain-service-cli', scopes: SCOPES },
  });

export type DeviceSignInRouteDeps = Pick<PlatformDeps, 'config' | 'devIdentity'>;

/**
 * Where a command line signs in a person without a browser of its own: the device authorization grant
 * (RFC 8628) at the identity provider, as a public client. `domain-service login` reads this first, so
 * a user needs only the API's address.
 */
export function deviceSignInRoutes(deps: DeviceSignInRouteDeps) {
  return [
    defineRoute({
      method: 'get',
      path: '/api/v1/sign-in/device',
      operationId: 'getDeviceSignIn',
      summary: 'How a command line signs a person in (OAuth 2.0 device authorization grant)',
      description:
        'Start the grant at the issuer’s `device_authorization_endpoint` with `client_id` and `scopes`, show the person the ' +
        '`verification_uri` and `user_code`, then poll the `token_endpoint`. Its access token is a session token for this API; ' +
        'its refresh token keeps the command line signed in.',
      tags: ['identity'],
      scope: 'public',
      responses: { 200: { description: 'The provider and client to use', schema: DeviceSignInSchema } },
      errors: { 404: 'This deployment has no client for device sign-in (`AUTH_DEVICE_CLIENT_ID`): use an API key (`NOT_FOUND`)' },
      handler: (ctx) => {
        const issuer = deps.config.auth?.issuer ?? deps.devIdentity?.openIdIssuer();
        const clientId = deps.config.deviceClientId;
        if (!issuer || !clientId) throw new NotFoundError('This service has no device sign-in; use an API key (DOMAIN_SERVICE_API_KEY)');
        ctx.body = { issuer, client_id: clientId, scopes: SCOPES };
      },
    }),
  ];
}
