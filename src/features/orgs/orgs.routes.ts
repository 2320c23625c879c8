import { defineRoute } from '../../http/route.js';
import type { PlatformDeps } from '../../platformDeps.js';
import type { OrgsOfUser } from './orgsOfUser.js';
import { listOrganizationsOfUser } from '../../auth/organizations.js';
import { decodeCursor, PaginationQuery, toPage } from '../../http/pagination.js';
import { OrganizationSchema, OrganizationSettingsSchema, presentOrganization } from './organization.presenter.js';
import { findBalance, setOrgSpendLimit } from '../billing/index.js';
import { createOrganizationWithin } from './createOrganization.js';
import { answerInTransaction } from '../../http/idempotency.js';
import { CreateOrganizationBody, OrganizationPage, UpdateOrganizationBody } from './schemas.js';
import { OrgPath } from '../../http/pathParams.js';
import { modeOf } from '../../db/modeScope.js';

export type OrganizationRouteDeps = Pick<PlatformDeps, 'db'> & { orgsOfUser: OrgsOfUser };

export function organizationRoutes(deps: OrganizationRouteDeps) {
  return [
    defineRoute({
      method: 'post',
      path: '/api/v1/orgs',
      operationId: 'createOrganization',
      summary: 'Create an organisation; the caller becomes its owner',
      tags: ['organisations'],
      scope: 'orgs:write',
      request: { body: CreateOrganizationBody },
      responses: { 201: { description: 'Created', schema: OrganizationSchema } },
      answersInTransaction: true,
      handler: async (ctx, { body, principal, requestId }) => {
        await answerInTransaction(ctx, deps.db, async (tx) => {
          const org = await createOrganizationWithin(tx, { principal, name: body.name, requestId });
          return { status: 201, headers: { Location: `/api/v1/orgs/${org.id}` }, body: presentOrganization(org) };
        });
        // After the commit, so no read in between caches the list without it.
        deps.orgsOfUser.forget(principal.user.id);
      },
    }),
    defineRoute({
      method: 'get',
      path: '/api/v1/orgs',
      operationId: 'listOrganizations',
      summary: "The caller's organisations, newest first, with the caller's role",
      tags: ['organisations'],
      scope: 'orgs:read',
      request: { query: PaginationQuery },
      responses: { 200: { description: 'A page of organisations', schema: OrganizationPage } },
      handler: async (ctx, { query, principal }) => {
        const rows = await listOrganizationsOfUser(deps.db, {
          userId: principal.user.id,
          limit: query.limit,
          after: decodeCursor(query.cursor),
        });
        ctx.body = toPage(rows, query.limit, (org) => ({ createdAt: org.createdAt, id: org.id }), presentOrganization);
      },
    }),
    defineRoute({
      method: 'get',
      path: '/api/v1/orgs/{org_oid}',
      operationId: 'getOrganization',
      summary: 'One organisation the caller belongs to',
      tags: ['organisations'],
      scope: 'orgs:read',
      request: { path: OrgPath },
      responses: { 200: { description: "The organisation, with the caller's mode's spending limit", schema: OrganizationSettingsSchema } },
      handler: async (ctx, { principal }) => {
        const { org, role } = ctx.state.org!;
        const balance = await findBalance(deps.db, modeOf(principal.livemode), org.id);
        ctx.body = { ...presentOrganization({ ...org, role }), monthly_spend_limit: balance.monthlySpendLimit };
      },
    }),
    defineRoute({
      method: 'patch',
      path: '/api/v1/orgs/{org_oid}',
      operationId: 'updateOrganization',
      summary: "Set the monthly spending limit of the caller's mode (owners)",
      description:
        'Each mode has its own limit: a test key sets the test-mode one, a live key or session the live one. Register, transfer ' +
        "and renew are refused with 402 `SPEND_LIMIT_REACHED` when their charge would take the month's captured plus reserved " +
        'spending past it. null removes the limit.',
      tags: ['organisations'],
      scope: 'orgs:write',
      roles: ['owner'],
      request: { path: OrgPath, body: UpdateOrganizationBody },
      responses: { 200: { description: 'The organisation as changed', schema: OrganizationSettingsSchema } },
      handler: async (ctx, { path, body, principal, requestId }) => {
        const { org, role } = ctx.state.org!;
        const limit = await setOrgSpendLimit({ db: deps.db, principal, orgId: path.org_oid, limit: body.monthly_spend_limit, requestId });
        ctx.body = { ...presentOrganization({ ...org, role }), monthly_spend_limit: limit };
      },
    }),
  ];
}
