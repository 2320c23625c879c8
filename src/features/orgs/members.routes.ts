import { defineRoute } from '../../http/route.js';
import type { PlatformDeps } from '../../platformDeps.js';
import type { OrgsOfUser } from './orgsOfUser.js';
import { listMembers } from '../../auth/memberships.js';
import { decodeCursor, PaginationQuery, toPage } from '../../http/pagination.js';
import { MemberRoleSchema, presentMember, presentMemberRole } from './organization.presenter.js';
import { InvitationSchema, presentInvitation } from './invitation.presenter.js';
import { changeMemberRole, removeMember, type MemberChangeCascade } from './members.js';
import { inviteMember } from './invitations.js';
import { createMailer } from '../../mail/mailer.js';
import { ChangeRoleBody, InviteMemberBody, MemberPage, MemberPath } from './schemas.js';
import { OrgPath } from '../../http/pathParams.js';

const MOVES_CANCELLED = (how: string) =>
  `A member ${how} loses the domain moves they proposed out of the organisation that are still pending: each is cancelled (\`cancelled_by: source\`) and both sides' owners are e-mailed.`;
const LIVE_ONLY = 'A test key gets 403 `LIVE_CREDENTIAL_REQUIRED`: organisations are shared by both modes.';

export type MemberRouteDeps = Pick<PlatformDeps, 'db' | 'config' | 'logger' | 'memberships'> & { orgsOfUser: OrgsOfUser };

/** `cascade`: what a member's removal or change of role takes with it (src/routes.ts gives it). */
export function memberRoutes(deps: MemberRouteDeps, cascade: MemberChangeCascade) {
  const mailer = createMailer(deps.config, deps.logger);
  return [
    defineRoute({
      method: 'get',
      path: '/api/v1/orgs/{org_oid}/members',
      operationId: 'listMembers',
      summary: 'Members of the organisation, newest first',
      tags: ['organisations'],
      scope: 'orgs:read',
      request: { path: OrgPath, query: PaginationQuery },
      responses: { 200: { description: 'A page of members', schema: MemberPage } },
      handler: async (ctx, { path, query }) => {
        const rows = await listMembers(deps.db, { orgId: path.org_oid, limit: query.limit, after: decodeCursor(query.cursor) });
        ctx.body = toPage(rows, query.limit, (m) => ({ createdAt: m.createdAt, id: m.userId }), presentMember);
      },
    }),
    defineRoute({
      method: 'post',
      path: '/api/v1/orgs/{org_oid}/members',
      operationId: 'inviteMember',
      summary: 'Invite an e-mail address as admin or member (owners and admins)',
      description:
        'Creates an invitation valid for 7 days and e-mails it to the address; the answer is the same whether or not ' +
        'the address has an account. The invitee joins by accepting it (`POST /api/v1/me/invitations/{invitation_id}/accept`). ' +
        LIVE_ONLY,
      tags: ['organisations'],
      scope: 'orgs:write',
      roles: ['owner', 'admin'],
      request: { path: OrgPath, body: InviteMemberBody },
      responses: { 201: { description: 'Invited', schema: InvitationSchema } },
      errors: { 403: 'Not an owner or admin (`FORBIDDEN`), or a test key (`LIVE_CREDENTIAL_REQUIRED`)' },
      handler: async (ctx, { body, principal, requestId }) => {
        const invitation = await inviteMember({
          db: deps.db,
          mailer,
          log: ctx.state.log,
          principal: principal,
          org: ctx.state.org!.org,
          email: body.email,
          role: body.role,
          requestId,
        });
        ctx.status = 201;
        ctx.body = presentInvitation(invitation);
      },
    }),
    defineRoute({
      method: 'patch',
      path: '/api/v1/orgs/{org_oid}/members/{user_id}',
      operationId: 'changeMemberRole',
      summary: "Change a member's role (owners and admins)",
      description: `Only an owner may grant or take \`owner\`; the last owner cannot step down (409 \`LAST_OWNER\`). ${MOVES_CANCELLED('made `member`')} ${LIVE_ONLY}`,
      tags: ['organisations'],
      scope: 'orgs:write',
      roles: ['owner', 'admin'],
      request: { path: MemberPath, body: ChangeRoleBody },
      responses: { 200: { description: 'The member with the new role', schema: MemberRoleSchema } },
      errors: {
        403: 'Not an owner or admin, or an admin touching `owner` (`FORBIDDEN`); a test key (`LIVE_CREDENTIAL_REQUIRED`)',
        404: 'No such member (`NOT_FOUND`)',
        409: 'The last owner stepping down (`LAST_OWNER`)',
      },
      handler: async (ctx, { path, body, principal, requestId }) => {
        const member = await changeMemberRole({
          db: deps.db,
          mailer,
          log: ctx.state.log,
          principal: principal,
          orgId: path.org_oid,
          callerRole: ctx.state.org!.role,
          userId: path.user_id,
          role: body.role,
          requestId,
          cascade,
        });
        deps.orgsOfUser.forget(path.user_id);
        deps.memberships.forget(path.org_oid, path.user_id);
        ctx.body = presentMemberRole(member);
      },
    }),
    defineRoute({
      method: 'delete',
      path: '/api/v1/orgs/{org_oid}/members/{user_id}',
      operationId: 'removeMember',
      summary: 'Remove a member (owners and admins), or leave (anyone, for themselves)',
      description: `Admins cannot remove an owner. The last owner cannot leave: 409 \`LAST_OWNER\`. ${MOVES_CANCELLED('removed or leaving')} ${LIVE_ONLY}`,
      tags: ['organisations'],
      scope: 'orgs:write',
      request: { path: MemberPath },
      responses: { 204: { description: 'Removed' } },
      handler: async (ctx, { path, principal, requestId }) => {
        await removeMember({
          db: deps.db,
          mailer,
          log: ctx.state.log,
          principal: principal,
          orgId: path.org_oid,
          callerRole: ctx.state.org!.role,
          userId: path.user_id,
          requestId,
          cascade,
        });
        deps.orgsOfUser.forget(path.user_id);
        deps.memberships.forget(path.org_oid, path.user_id);
        ctx.status = 204;
      },
    }),
  ];
}
