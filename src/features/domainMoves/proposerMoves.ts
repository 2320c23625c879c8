import type { Db, Queryable } from '../../db/pool.js';
import type { Logger } from '../../logger.js';
import type { Mailer } from '../../mail/mailer.js';
import type { OrgRole } from '../../auth/memberships.js';
import { auditCallerAction, type CallerOfRequest } from '../../audit/auditEvents.js';
import { cancelPendingMovesOfProposer, type DomainMove } from './domainMoves.repository.js';
import { PROPOSER_ROLES } from './moveChecks.js';
import { mailBothSides } from './moveNotices.js';
import { modeOf } from '../../db/modeScope.js';
import type { MemberChange, MemberChangeCascade } from '../orgs/index.js';

/** Why a proposer's moves were cancelled, as their audit entries say. */
export type ProposerLoss = 'proposer_removed' | 'proposer_left' | 'proposer_demoted';

/** A role change that ends a member's standing to propose moves (and so their pending moves). */
export function losesProposerStanding(from: OrgRole, to: OrgRole): boolean {
  return PROPOSER_ROLES.includes(from) && !PROPOSER_ROLES.includes(to);
}

/**
 * Cancels, as the source, the pending moves `userId` proposed out of `orgId`, in both modes, in the
 * caller's transaction: call it after the membership row was deleted or changed there, so an
 * acceptance under way (which share-locks that row, src/flows/moveDomain/acceptMove.ts) is waited for first. Each gets
 * the audit entry a cancellation gets; mail them with mailCancelledMoves once committed.
 */
export async function cancelMovesOfProposer(tx: Queryable, caller: CallerOfRequest, props: { orgId: string; userId: string; reason: ProposerLoss }): Promise<DomainMove[]> {
  const cancelled: DomainMove[] = [];
  for (const livemode of [true, false]) {
    const moves = await cancelPendingMovesOfProposer(tx, modeOf(livemode), { orgId: props.orgId, proposedBy: props.userId, decidedBy: caller.principal.user.id });
    for (const move of moves) {
      await auditCallerAction(tx, caller, {
        action: 'domain.move_cancelled',
        orgId: props.orgId,
        targetType: 'domain_move',
        targetId: move.id,
        livemode,
        data: { domain: move.domainName, from_org_id: move.fromOrgId, to_org_id: move.toOrgId, livemode, reason: props.reason },
      });
    }
    cancelled.push(...moves);
  }
  return cancelled;
}

/** The owners of both sides of each move are told it was cancelled, as when a side cancels it. */
export async function mailCancelledMoves(props: { db: Db; mailer: Mailer; log: Logger; moves: DomainMove[] }): Promise<void> {
  await Promise.all(props.moves.map((move) => mailBothSides({ db: props.db, mailer: props.mailer, log: props.log, move, kind: 'cancelled' })));
}

/** Why a membership change ends the member's standing to propose moves, or null when it does not. */
function proposerLoss(change: MemberChange): ProposerLoss | null {
  if (change.kind === 'removed') return 'proposer_removed';
  if (change.kind === 'left') return 'proposer_left';
  return losesProposerStanding(change.from, change.to) ? 'proposer_demoted' : null;
}

/**
 * A member removed, leaving or demoted loses the moves they proposed out of the organisation that
 * are still pending: cancelled in the membership change's transaction, both sides' owners mailed
 * once it has committed. What the wiring gives orgs' member routes (src/routes.ts).
 */
export const cancelMovesOfDepartingProposer: MemberChangeCascade = async (tx, request, change) => {
  const reason = proposerLoss(change);
  const moves = reason ? await cancelMovesOfProposer(tx, request, { orgId: change.orgId, userId: change.userId, reason }) : [];
  return () => mailCancelledMoves({ db: request.db, mailer: request.mailer, log: request.log, moves });
};
