import { defineRoute } from '../../http/route.js';
import type { PlatformDeps } from '../../platformDeps.js';
import { DomainMoveSchema, presentDomainMove, MovePath, moveRequest, MOVES_GUIDE, OWNERS_AND_ADMINS } from '../../features/domainMoves/index.js';
import { acceptMove } from './acceptMove.js';

export type AcceptMoveRouteDeps = Pick<PlatformDeps, 'db' | 'config' | 'logger' | 'temporal'>;

/** Accepting a domain move: the target takes the domain (acceptMove.ts). */
export function acceptMoveRoutes(deps: AcceptMoveRouteDeps) {
  const request = moveRequest(deps);
  return [
    defineRoute({
      method: 'post',
      path: '/api/v1/orgs/{org_oid}/domain-moves/{move_id}/accept',
      operationId: 'acceptDomainMove',
      summary: 'Accept a move into this organisation (owners and admins of the target)',
      description:
        'In one transaction the domain, its DNS records, contacts (copied), DNSSEC state, lifecycle, auto-renew setting and pending ' +
        'notices become this organisation’s; events `domain.moved_out` and `domain.moved_in` are emitted. No charge. ' +
        'Only while its proposer is still an owner or admin of the source: removing or demoting them cancels it.' +
        MOVES_GUIDE,
      tags: ['domains'],
      scope: 'domains:write',
      roles: OWNERS_AND_ADMINS,
      request: { path: MovePath },
      errors: {
        404: 'No such move into this organisation in this mode (`NOT_FOUND`)',
        409:
          'The move was accepted, cancelled (removing or demoting its proposer cancels it) or has expired, or its proposer is no longer an owner or admin of the source (`MOVE_NOT_PENDING`); ' +
          'or a register, transfer or renewal of the domain is unfinished, named in the detail, or (test mode) this organisation holds a domain of that name (`DOMAIN_STATE_CONFLICT`)',
      },
      responses: { 200: { description: 'The accepted move', schema: DomainMoveSchema } },
      handler: async (ctx, { path, principal, requestId }) => {
        ctx.body = presentDomainMove(await acceptMove({ ...request(ctx, principal, requestId), orgId: path.org_oid, moveId: path.move_id }), path.org_oid);
      },
    }),
  ];
}
