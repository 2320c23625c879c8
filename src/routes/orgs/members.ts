import { defineRoute } from '../../http/route.js';
import type { AppDeps } from '../../deps.js';
import { requirePrincipal } from '../../auth/authorize.js';
import { listMembers } from '../../db/repositories/memberships.js';
import { decodeCursor, PaginationQuery, toPage } from '../../http/pagination.js';
import { MemberSchema, presentMember } from '../../presenters/organization.js';
import { addMember, removeMember } from '../../services/orgs/members.js';
import { AddMemberBody, MemberPage, MemberPath, OrgPath } from './schema.js';

export function memberRoutes(deps: AppDeps) {
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
      operationId: 'addMember',
      summary: 'Add a user by e-mail (they must have signed in once) as admin or member',
      tags: ['organisations'],
      scope: 'orgs:write',
      roles: ['owner', 'admin'],
      request: { path: OrgPath, body: AddMemberBody },
      responses: { 201: { description: 'Added', schema: MemberSchema } },
      handler: async (ctx, { path, body }) => {
        const member = await addMember({
          db: deps.db,
          principal: requirePrincipal(ctx.state),
          orgId: path.org_oid,
          email: body.email,
          role: body.role,
          requestId: ctx.state.requestId,
        });
        ctx.status = 201;
        ctx.body = presentMember(member);
      },
    }),
    defineRoute({
      method: 'delete',
      path: '/api/v1/orgs/{org_oid}/members/{user_id}',
      operationId: 'removeMember',
      summary: 'Remove a member (owners and admins), or leave (anyone, for themselves)',
      description: 'Admins cannot remove an owner. The last owner cannot leave: 409 `LAST_OWNER`.',
      tags: ['organisations'],
      scope: 'orgs:write',
      request: { path: MemberPath },
      responses: { 204: { description: 'Removed' } },
      handler: async (ctx, { path }) => {
        await removeMember({
          db: deps.db,
          principal: requirePrincipal(ctx.state),
          orgId: path.org_oid,
          callerRole: ctx.state.org!.role,
          userId: path.user_id,
          requestId: ctx.state.requestId,
        });
        ctx.status = 204;
      },
    }),
  ];
}
