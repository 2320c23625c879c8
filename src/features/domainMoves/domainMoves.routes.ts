import { defineRoute } from '../../http/route.js';
import type { AppDeps } from '../../deps.js';
import type { AppContext } from '../../http/context.js';
import type { Principal } from '../../auth/principal.js';
import { createMailer } from '../../mail/mailer.js';
import { decodeCursor, toPage } from '../../http/pagination.js';
import { DomainMoveSchema, presentDomainMove } from './domainMove.presenter.js';
import { listDomainMoves } from './domainMoves.repository.js';
import { proposeMove, type MoveRequest } from './proposeMove.js';
import { acceptMove, cancelMove, getMove } from './decideMove.js';
import { DomainMovePage, DomainPath, ListMovesQuery, MovePath, OrgPath, ProposeMoveBody } from './schemas.js';

const OWNERS_AND_ADMINS = ['owner', 'admin'] as const;
const NOT_PENDING = 'The move was accepted, cancelled or has expired (`MOVE_NOT_PENDING`)';
const GUIDE = ' See the API guide, "Moving a domain".';

export function domainMoveRoutes(deps: AppDeps) {
  const mailer = createMailer(deps.config, deps.logger);
  const request = (ctx: AppContext, principal: Principal, requestId: string): MoveRequest => ({ deps, mailer, log: ctx.state.log, principal, requestId });
  return [
    defineRoute({
      method: 'post',
      path: '/api/v1/orgs/{org_oid}/domains/{domain}/moves',
      operationId: 'proposeDomainMove',
      summary: 'Propose to move a domain to another organisation you belong to (owners and admins)',
      description:
        'Creates a pending move; nothing changes hands until an owner or admin of the target accepts it within 7 days. ' +
        'Nothing is charged and the registrar is not called. An organisation you are not a member of answers 404 as an unknown one.' +
        GUIDE,
      tags: ['domains'],
      scope: 'domains:write',
      roles: OWNERS_AND_ADMINS,
      request: { path: DomainPath, body: ProposeMoveBody },
      errors: {
        404: 'No such domain in this organisation and mode, or no such organisation among yours (`NOT_FOUND`)',
        409:
          'The domain is not `active` or `expired`, has a register, transfer or renewal unfinished (the detail names it), already has a pending move, ' +
          'or (test mode) the target holds a domain of that name (`DOMAIN_STATE_CONFLICT`)',
        422: '`to_org_id` names this organisation',
      },
      responses: { 201: { description: 'The pending move', schema: DomainMoveSchema } },
      handler: async (ctx, { path, body, principal, requestId }) => {
        const move = await proposeMove({ ...request(ctx, principal, requestId), orgId: path.org_oid, domainName: path.domain, toOrgId: body.to_org_id });
        ctx.status = 201;
        ctx.body = presentDomainMove(move);
      },
    }),
    defineRoute({
      method: 'get',
      path: '/api/v1/orgs/{org_oid}/domain-moves',
      operationId: 'listDomainMoves',
      summary: "The organisation's outgoing or incoming domain moves of the caller's mode, newest first",
      tags: ['domains'],
      scope: 'domains:read',
      request: { path: OrgPath, query: ListMovesQuery },
      responses: { 200: { description: 'A page of moves', schema: DomainMovePage } },
      handler: async (ctx, { path, query, principal }) => {
        const rows = await listDomainMoves(deps.db, principal, { orgId: path.org_oid, direction: query.direction, limit: query.limit, after: decodeCursor(query.cursor) });
        ctx.body = toPage(rows, query.limit, (m) => ({ createdAt: m.createdAt, id: m.id }), presentDomainMove);
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
        ctx.body = presentDomainMove(await getMove({ ...request(ctx, principal, requestId), orgId: path.org_oid, moveId: path.move_id }));
      },
    }),
    defineRoute({
      method: 'post',
      path: '/api/v1/orgs/{org_oid}/domain-moves/{move_id}/accept',
      operationId: 'acceptDomainMove',
      summary: 'Accept a move into this organisation (owners and admins of the target)',
      description:
        'In one transaction the domain, its DNS records, contacts (copied), DNSSEC state, lifecycle, auto-renew setting and pending ' +
        'notices become this organisation’s; events `domain.moved_out` and `domain.moved_in` are emitted. No charge.' +
        GUIDE,
      tags: ['domains'],
      scope: 'domains:write',
      roles: OWNERS_AND_ADMINS,
      request: { path: MovePath },
      errors: {
        404: 'No such move into this organisation in this mode (`NOT_FOUND`)',
        409: `${NOT_PENDING}; or a register, transfer or renewal of the domain is unfinished, named in the detail (\`DOMAIN_STATE_CONFLICT\`)`,
      },
      responses: { 200: { description: 'The accepted move', schema: DomainMoveSchema } },
      handler: async (ctx, { path, principal, requestId }) => {
        ctx.body = presentDomainMove(await acceptMove({ ...request(ctx, principal, requestId), orgId: path.org_oid, moveId: path.move_id }));
      },
    }),
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
        ctx.body = presentDomainMove(await cancelMove({ ...request(ctx, principal, requestId), orgId: path.org_oid, moveId: path.move_id }));
      },
    }),
  ];
}
