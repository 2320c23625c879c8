import type { Db, Queryable } from '../../db/pool.js';
import type { Logger } from '../../logger.js';
import type { Mailer } from '../../mail/mailer.js';
import type { OrgRole } from '../../auth/memberships.js';
import { auditCallerAction, type CallerOfRequest } from '../../audit/auditEvents.js';
import { cancelPendingMovesOfProposer, type DomainMove } from './domainMoves.repository.js';
import { PROPOSER_ROLES } from './moveChecks.js';
import { mailBothSides } from './moveNotices.js';
import { modeOf } from '../../db/modeScope.js';

/** Why a proposer's moves were cancelled, as their audit entries say. */
export type ProposerLoss = 'proposer_removed' | 'proposer_left' | 'proposer_demoted';

/** A role change that ends a member's standing to propose moves (and so their pending moves). */
export function losesProposerStanding(from: OrgRole, to: OrgRole): boolean {
  return PROPOSER_ROLES.includes(from) && !PROPOSER_ROLES.includes(to);
}

/**
 * Cancels, as the source, the pending moves `userId` proposed out of `orgId`, in both modes, in the
 * caller's transaction: call it after the membership row was deleted or changed there, so an
 * acceptance under way (which share-locks that row, decideMove.ts) is waited for first. Each gets
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
