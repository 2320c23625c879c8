import { defineRoute } from '../../http/route.js';
import type { PlatformDeps } from '../../platformDeps.js';
import { decodeCursor, toPage } from '../../http/pagination.js';
import { OrgPath } from '../../http/pathParams.js';
import { listAuditLog } from './auditLog.repository.js';
import { presentAuditLogEntry } from './auditLog.presenter.js';
import { AuditLogPage, AuditLogQuery } from './schemas.js';
import { modeOf } from '../../db/modeScope.js';

export type AuditLogRouteDeps = Pick<PlatformDeps, 'db'>;

export function auditLogRoutes(deps: AuditLogRouteDeps) {
  return [
    defineRoute({
      method: 'get',
      path: '/api/v1/orgs/{org_oid}/audit-log',
      operationId: 'listAuditLog',
      summary: "Who did what in the organisation, newest first (owners and admins)",
      description:
        'Members, invitations and roles; API keys (created, changed, deleted, revoked: those of the keys that acted in ' +
        'this organisation); DNS records; domain settings and auth codes read; contacts; top-ups, operator credits and ' +
        'spending limits; webhook endpoints. The entries of the caller’s mode only, as every object: a test key reads ' +
        'test-mode entries, a session those of the mode it asks for with `X-Mode` (live unless `test`); organisations and ' +
        'their members are live-mode entries. Entries are kept one year.',
      tags: ['organisations'],
      scope: 'orgs:read',
      roles: ['owner', 'admin'],
      request: { path: OrgPath, query: AuditLogQuery },
      responses: { 200: { description: 'A page of entries', schema: AuditLogPage } },
      errors: { 403: 'Not an owner or admin of the organisation (`FORBIDDEN`)' },
      handler: async (ctx, { path, query, principal }) => {
        const rows = await listAuditLog(deps.db, modeOf(principal.livemode), {
          orgId: path.org_oid,
          action: query.action,
          actor: query.actor,
          limit: query.limit,
          after: decodeCursor(query.cursor),
        });
        ctx.body = toPage(rows, query.limit, (e) => ({ createdAt: e.createdAt, id: e.id }), presentAuditLogEntry);
      },
    }),
  ];
}
