import { defineRoute } from '../../http/route.js';
import type { OrgsOfUser } from './orgsOfUser.js';
import { MeSchema } from './me.schemas.js';
import { invitationRoutes, type InvitationRouteDeps } from './myInvitations.routes.js';

export type MeRouteDeps = InvitationRouteDeps & { orgsOfUser: OrgsOfUser };

export function meRoutes(deps: MeRouteDeps) {
  return [
    defineRoute({
      method: 'get',
      path: '/api/v1/me',
      operationId: 'getMe',
      summary: 'The calling identity: user, how it authenticated, and its organisations',
      description:
        'At most 100 organisations. A membership or role changed through this api process shows at once; ' +
        'through another one, within 1.5 s.',
      tags: ['identity'],
      scope: 'any',
      responses: { 200: { description: 'The caller', schema: MeSchema } },
      handler: async (ctx, { principal }) => {
        const orgs = await deps.orgsOfUser.get(principal.user.id);
        ctx.body = {
          id: principal.user.id,
          email: principal.user.email,
          name: principal.user.name,
          // JSON leaves `key_id` out for a session (undefined).
          auth: { type: principal.type, key_id: principal.keyId, mode: principal.mode, scopes: [...principal.scopes] },
          orgs: orgs.map((org) => ({ id: org.id, name: org.name, role: org.role })),
        };
      },
    }),
    ...invitationRoutes(deps),
  ];
}
