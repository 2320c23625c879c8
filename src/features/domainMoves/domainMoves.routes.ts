import { defineRoute } from '../../http/route.js';
import type { PlatformDeps } from '../../platformDeps.js';
import type { AppContext } from '../../http/context.js';
import type { Principal } from '../../auth/principal.js';
import { createMailer } from '../../mail/mailer.js';
import { decodeCursor, toPage } from '../../http/pagination.js';
import { DomainMoveSchema, presentDomainMove } from './domainMove.presenter.js';
import { listDomainMoves } from './domainMoves.repository.js';
import { proposeMove, type MoveRequest } from './proposeMove.js';
import { getMove } from './moveOfCaller.js';
import { cancelMove } from './cancelMove.js';
import { DomainMovePage, ListMovesQuery, MovePath, ProposeMoveBody } from './schemas.js';
import { TerseDomainPath, TerseOrgPath } from '../../http/pathParams.js';
import { pendingMovesAllowed } from './moveChecks.js';
import { modeOf } from '../../db/modeScope.js';

/** Who acts on a move: owners and admins of a side. */
export const OWNERS_AND_ADMINS = ['owner', 'admin'] as const;
const NOT_PENDING = 'The move was accepted, cancelled or has expired (`MOVE_NOT_PENDING`)';
export const MOVES_GUIDE = ' See the API guide, "Moving a domain".';

/** The MoveRequest of a route's request: its caller, log and request id, with a mailer of the routes' own. */
export function moveRequest(deps: DomainMoveRouteDeps): (ctx: AppContext, principal: Principal, requestId: string) => MoveRequest {
  const mailer = createMailer(deps.config, deps.logger);
  return (ctx, principal, requestId) => ({ deps, mailer, log: ctx.state.log, principal, requestId });
}

export type DomainMoveRouteDeps = Pick<PlatformDeps, 'db' | 'config' | 'logger' | 'temporal'>;

/** Proposing a move and reading them; accepting one is a flow (src/flows/moveDomain/), cancelling one is cancelDomainMoveRoutes. */
export function domainMoveRoutes(deps: DomainMoveRouteDeps) {
  const request = moveRequest(deps);
  return [
    defineRoute({
      method: 'post',
      path: '/api/v1/orgs/{org_oid}/domains/{domain}/moves',
      operationId: 'proposeDomainMove',
      summary: 'Propose to move a domain to another organisation, named by its id (owners and admins)',
      description:
        'Creates a pending move to the organisation `to_org_id` names: any organisation, whether or not you belong to it (a client’s, say). ' +
        'Nothing changes hands until an owner or admin of the target accepts it within 7 days. Nothing is charged and the registrar is not called. ' +
        'The answer is the same whether or not an organisation has that id (201, a pending move, `to_org.name` null until the target answers); ' +
        'a move to an id nobody has expires unanswered. It stays acceptable only while you are an owner or admin here: ' +
        `removing or demoting you cancels it. At most ${pendingMovesAllowed('free')} pending moves per organisation and mode on the free plan ` +
        `(${pendingMovesAllowed('pro')} pro, ${pendingMovesAllowed('enterprise')} enterprise).` +
        MOVES_GUIDE,
      tags: ['domains'],
      scope: 'domains:write',
      roles: OWNERS_AND_ADMINS,
      request: { path: TerseDomainPath, body: ProposeMoveBody },
      errors: {
        404: 'No such domain in this organisation and mode (`NOT_FOUND`)',
        409:
          'The domain is not `active` or `expired`, has a register, transfer or renewal unfinished (the detail names it), or already has a pending move (`DOMAIN_STATE_CONFLICT`); ' +
          'or the organisation has as many pending moves in this mode as its plan allows (`DOMAIN_MOVE_LIMIT`, the detail names the limit)',
        422: '`to_org_id` is not an organisation id (`org_` and 22 letters or digits), or names this organisation',
      },
      responses: { 201: { description: 'The pending move', schema: DomainMoveSchema } },
      handler: async (ctx, { path, body, principal, requestId }) => {
        const move = await proposeMove({
          ...request(ctx, principal, requestId),
          orgId: path.org_oid,
          plan: ctx.state.org!.org.plan,
          domainName: path.domain,
          toOrgId: body.to_org_id,
        });
        ctx.status = 201;
        ctx.body = presentDomainMove(move, path.org_oid);
      },
    }),
    defineRoute({
      method: 'get',
      path: '/api/v1/orgs/{org_oid}/domain-moves',
      operationId: 'listDomainMoves',
      summary: "The organisation's outgoing or incoming domain moves of the caller's mode, newest first",
      tags: ['domains'],
      scope: 'domains:read',
      request: { path: TerseOrgPath, query: ListMovesQuery },
      responses: { 200: { description: 'A page of moves', schema: DomainMovePage } },
      handler: async (ctx, { path, query, principal }) => {
        const rows = await listDomainMoves(deps.db, modeOf(principal.livemode), { orgId: path.org_oid, direction: query.direction, limit: query.limit, after: decodeCursor(query.cursor) });
        ctx.body = toPage(rows, query.limit, (m) => ({ createdAt: m.createdAt, id: m.id }), (m) => presentDomainMove(m, path.org_oid));
      },
    }),
    defineRoute({
      method: 'get',
      path: '/api/v1/orgs/{org_oid}/domain-moves/{move_id}',
      operationId: 'getDomainMove',
      summary: 'One move this organisation is a side of',
      tags: ['domains'],
      scope: 'domains:read',
      request: { path: MovePath },
      errors: { 404: 'No such move of this organisation in this mode (`NOT_FOUND`)' },
      responses: { 200: { description: 'The move', schema: DomainMoveSchema } },
      handler: async (ctx, { path, principal, requestId }) => {
        ctx.body = presentDomainMove(await getMove({ ...request(ctx, principal, requestId), orgId: path.org_oid, moveId: path.move_id }), path.org_oid);
      },
    }),
  ];
}

/**
 * Cancelling a move, from either side: listed after the acceptance (src/flows/moveDomain/), as the
 * OpenAPI document has its paths in route order (src/routes.ts).
 */
export function cancelDomainMoveRoutes(deps: DomainMoveRouteDeps) {
  const request = moveRequest(deps);
  return [
    defineRoute({
      method: 'post',
      path: '/api/v1/orgs/{org_oid}/domain-moves/{move_id}/cancel',
      operationId: 'cancelDomainMove',
      summary: 'Cancel a pending move, from either side (owners and admins)',
      tags: ['domains'],
      scope: 'domains:write',
      roles: OWNERS_AND_ADMINS,
      request: { path: MovePath },
      errors: { 404: 'No such move of this organisation in this mode (`NOT_FOUND`)', 409: NOT_PENDING },
      responses: { 200: { description: 'The cancelled move', schema: DomainMoveSchema } },
      handler: async (ctx, { path, principal, requestId }) => {
        ctx.body = presentDomainMove(await cancelMove({ ...request(ctx, principal, requestId), orgId: path.org_oid, moveId: path.move_id }), path.org_oid);
      },
    }),
  ];
}
