import { defineRoute } from '../../http/route.js';
import { answerAccepted } from './accepted.js';
import type { PlatformDeps } from '../../platformDeps.js';
import { listOperationsOfOrg } from './operations.repository.js';
import { decodeCursor, PaginationQuery, pageSchema, toPage } from '../../http/pagination.js';
import { OperationSchema, presentOperation } from './operation.presenter.js';
import { OperationPath } from './schemas.js';
import { TerseOrgPath } from '../../http/pathParams.js';
import { cancelOperation } from './cancelOperation.js';
import { operationOfCaller } from './operationOfCaller.js';
import { modeOf } from '../../db/modeScope.js';

export type OperationRouteDeps = Pick<PlatformDeps, 'db' | 'temporal'>;

export function operationRoutes(deps: OperationRouteDeps) {
  return [
    defineRoute({
      method: 'post',
      path: '/api/v1/orgs/{org_oid}/operations/{operation_id}/cancel',
      operationId: 'cancelOperation',
      summary: 'Cancel a pending transfer (409 OPERATION_NOT_CANCELLABLE for anything else)',
      tags: ['operations'],
      scope: 'domains:write',
      request: { path: OperationPath },
      responses: { 202: { description: 'Cancellation requested; poll until `cancelled`', schema: OperationSchema } },
      handler: async (ctx, { path, principal }) => {
        const operation = await cancelOperation({ deps, principal: principal, orgId: path.org_oid, operationId: path.operation_id });
        answerAccepted(ctx, operation);
      },
    }),
    defineRoute({
      method: 'get',
      path: '/api/v1/orgs/{org_oid}/operations',
      operationId: 'listOperations',
      summary: "The organisation's operations of the caller's mode, newest first",
      tags: ['operations'],
      scope: 'domains:read',
      request: { path: TerseOrgPath, query: PaginationQuery },
      responses: { 200: { description: 'A page of operations', schema: pageSchema(OperationSchema) } },
      handler: async (ctx, { path, query, principal }) => {
        const rows = await listOperationsOfOrg(deps.db, modeOf(principal.livemode), { orgId: path.org_oid, limit: query.limit, after: decodeCursor(query.cursor) });
        ctx.body = toPage(rows, query.limit, (op) => ({ createdAt: op.createdAt, id: op.id }), presentOperation);
      },
    }),
    defineRoute({
      method: 'get',
      path: '/api/v1/orgs/{org_oid}/operations/{operation_id}',
      operationId: 'getOperation',
      summary: 'Poll an operation; while it is unfinished the answer carries Retry-After',
      tags: ['operations'],
      scope: 'domains:read',
      request: { path: OperationPath },
      responses: { 200: { description: 'The operation', schema: OperationSchema } },
      handler: async (ctx, { path, principal }) => {
        const operation = await operationOfCaller(deps.db, principal, path.org_oid, path.operation_id);
        if (operation.status === 'pending' || operation.status === 'running') {
          ctx.set('Retry-After', principal.livemode ? '30' : '1');
        }
        ctx.body = presentOperation(operation);
      },
    }),
  ];
}
