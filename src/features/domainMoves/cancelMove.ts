import { withTransaction } from '../../db/pool.js';
import { modeOf } from '../../db/modeScope.js';
import { auditCallerAction } from '../../audit/auditEvents.js';
import { NotFoundError } from '../../errors.js';
import { decideDomainMove, effectiveStatus, findDomainMove, type DomainMove } from './domainMoves.repository.js';
import { MoveNotPendingError } from './errors.js';
import { mailBothSides } from './moveNotices.js';
import { moveOfCaller } from './moveOfCaller.js';
import type { MoveRequest } from './proposeMove.js';

/** Either side cancels a pending move (owners and admins, checked on the route). */
export async function cancelMove(props: MoveRequest & { orgId: string; moveId: string }): Promise<DomainMove> {
  const { deps, principal } = props;
  const mode = modeOf(principal.livemode);
  const seen = await moveOfCaller(props, 'either');
  const move = await withTransaction(deps.db, async (tx) => {
    const current = await findDomainMove(tx, mode, { orgId: props.orgId, id: seen.id, side: 'either', forUpdate: true });
    if (!current) throw new NotFoundError('Domain move not found');
    const status = effectiveStatus(current);
    if (status !== 'pending') throw new MoveNotPendingError(current.id, status);
    const cancelled = await decideDomainMove(tx, mode, { id: current.id, status: 'cancelled', decidedBy: principal.user.id, cancelledByOrgId: props.orgId });
    if (!cancelled) throw new MoveNotPendingError(current.id, 'cancelled');
    await auditCallerAction(tx, props, {
      action: 'domain.move_cancelled',
      orgId: props.orgId,
      targetType: 'domain_move',
      targetId: cancelled.id,
      data: { domain: cancelled.domainName, from_org_id: cancelled.fromOrgId, to_org_id: cancelled.toOrgId, livemode: mode.livemode },
    });
    return cancelled;
  });
  await mailBothSides({ db: deps.db, mailer: props.mailer, log: props.log, move, kind: 'cancelled' });
  return move;
}
