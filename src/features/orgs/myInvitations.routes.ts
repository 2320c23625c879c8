import { z } from 'zod';
import { defineRoute } from '../../http/route.js';
import type { PlatformDeps } from '../../platformDeps.js';
import type { OrgsOfUser } from './orgsOfUser.js';
import { AcceptedInvitationSchema, PendingInvitationSchema, presentPendingInvitation } from './invitation.presenter.js';
import { acceptInvitation, listMyInvitations } from './invitations.js';

const InvitationPath = z.object({ invitation_id: z.string().min(1).max(64).describe('Invitation id (`inv_…`)') });
const MAX_LISTED = 100;

export type InvitationRouteDeps = Pick<PlatformDeps, 'db'> & { orgsOfUser: OrgsOfUser };

export function invitationRoutes(deps: InvitationRouteDeps) {
  return [
    defineRoute({
      method: 'get',
      path: '/api/v1/me/invitations',
      operationId: 'listMyInvitations',
      summary: "Pending invitations for the caller's e-mail address, newest first",
      description: `At most ${MAX_LISTED}. Empty unless the identity provider asserts the address verified (\`email_verified: true\`).`,
      tags: ['organisations'],
      scope: 'orgs:read',
      responses: {
        200: { description: 'Pending invitations', schema: z.object({ data: z.array(PendingInvitationSchema) }).meta({ id: 'PendingInvitationList' }) },
      },
      handler: async (ctx, { principal }) => {
        const rows = await listMyInvitations({ db: deps.db, principal: principal, limit: MAX_LISTED });
        ctx.body = { data: rows.map(presentPendingInvitation) };
      },
    }),
    defineRoute({
      method: 'post',
      path: '/api/v1/me/invitations/{invitation_id}/accept',
      operationId: 'acceptInvitation',
      summary: 'Join the organisation an invitation names, with its role',
      description:
        "Only for the invitee's own e-mail address, and only with a session or a live key (a test key gets 403 " +
        '`LIVE_CREDENTIAL_REQUIRED`). The identity provider must assert the address verified (`email_verified: true`).',
      tags: ['organisations'],
      scope: 'orgs:write',
      request: { path: InvitationPath },
      responses: { 200: { description: 'Now a member', schema: AcceptedInvitationSchema } },
      errors: {
        403: 'A test key (`LIVE_CREDENTIAL_REQUIRED`), or an e-mail address the identity provider has not asserted verified (`EMAIL_NOT_VERIFIED`)',
        404: 'No pending invitation with this id for your e-mail address: unknown, expired, accepted or addressed to someone else (`NOT_FOUND`)',
        409: 'Already a member of the organisation (`DUPLICATE`)',
      },
      handler: async (ctx, { path, principal, requestId }) => {
        const membership = await acceptInvitation({
          db: deps.db,
          principal: principal,
          invitationId: path.invitation_id,
          requestId,
        });
        deps.orgsOfUser.forget(principal.user.id);
        ctx.body = { org_id: membership.orgId, role: membership.role };
      },
    }),
  ];
}
