import { z } from 'zod';
import { defineRoute } from '../../http/route.js';
import type { DevIdentityProvider } from './devIdentityProvider.js';

/** Served only while the development identity provider is on. */
export function devIdentityRoutes(devIdentity: DevIdentityProvider) {
  return [
    defineRoute({
      method: 'get',
      path: '/dev/jwks.json',
      operationId: 'getDevJwks',
      summary: 'Public keys of the development identity provider',
      tags: ['development'],
      scope: 'public',
      hidden: true,
      responses: { 200: { description: 'JWKS', schema: z.object({ keys: z.array(z.record(z.string(), z.unknown())) }) } },
      handler: (ctx) => {
        ctx.body = devIdentity.jwks();
      },
    }),
  ];
}
