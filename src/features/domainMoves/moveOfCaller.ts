import { modeOf } from '../../db/modeScope.js';
import { requireDomainAllowed } from '../../auth/authorize.js';
import { NotFoundError } from '../../errors.js';
import { findDomainMove, type DomainMove } from './domainMoves.repository.js';
import type { MoveRequest } from './proposeMove.js';

/**
 * A move the organisation is a side of (`to`: it is the target), seen by a key that may act on its
 * domain; else 404 or 403 as for the domain's own routes.
 */
export async function moveOfCaller(props: MoveRequest & { orgId: string; moveId: string }, side: 'to' | 'either'): Promise<DomainMove> {
  const move = await findDomainMove(props.deps.db, modeOf(props.principal.livemode), { orgId: props.orgId, id: props.moveId, side });
  if (!move) throw new NotFoundError('Domain move not found');
  requireDomainAllowed(props.principal, move.domainName);
  return move;
}

/** One move of either side of it, for reading. */
export function getMove(props: MoveRequest & { orgId: string; moveId: string }): Promise<DomainMove> {
  return moveOfCaller(props, 'either');
}
