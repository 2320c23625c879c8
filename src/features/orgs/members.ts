import { withTransaction, type Db } from '../../db/pool.js';
import { deleteMembership, findMembership, lockOwners, updateMembershipRole, type OrgRole } from '../../auth/memberships.js';
import { findUserById } from '../../auth/users.js';
import { auditCallerAction } from '../../audit/auditEvents.js';
import { ForbiddenError } from '../../auth/errors.js';
import type { Principal } from '../../auth/principal.js';
import { ConflictError, NotFoundError } from '../../errors.js';
import type { Logger } from '../../logger.js';
import type { Mailer } from '../../mail/mailer.js';
import { cancelMovesOfProposer, losesProposerStanding, mailCancelledMoves } from '../domainMoves/proposerMoves.js';
import { requireLiveCredential } from './liveCredential.js';

/** Who is told when a change of members cancels domain moves (their proposer lost the standing). */
interface MoveMail {
  mailer: Mailer;
  log: Logger;
}

export interface RemoveMemberProps extends MoveMail {
  db: Db;
  principal: Principal;
  orgId: string;
  callerRole: OrgRole;
  userId: string;
  requestId: string;
}

/**
 * Removes a member, or lets a member leave. Owners and admins remove others; admins cannot remove
 * an owner; the last owner cannot leave (owner rows are locked, so two owners cannot both go at once).
 * The domain moves they proposed out of the organisation and still pending are cancelled with it.
 */
export async function removeMember(props: RemoveMemberProps): Promise<void> {
  requireLiveCredential(props.principal);
  const leaving = props.userId === props.principal.user.id;
  if (!leaving && props.callerRole === 'member') {
    throw new ForbiddenError('Only owners and admins can remove other members');
  }
  const cancelledMoves = await withTransaction(props.db, async (tx) => {
    const owners = await lockOwners(tx, props.orgId);
    const target = await findMembership(tx, props.orgId, props.userId);
    if (!target) throw new NotFoundError('Member not found');
    if (!leaving && target.role === 'owner' && props.callerRole !== 'owner') {
      throw new ForbiddenError('Only an owner can remove an owner');
    }
    if (target.role === 'owner' && owners.length <= 1) {
      throw new ConflictError('LAST_OWNER', 'The last owner cannot leave the organisation');
    }
    await deleteMembership(tx, props.orgId, props.userId);
    await auditCallerAction(tx, props, {
      action: 'org.member_removed',
      orgId: props.orgId,
      targetType: 'membership',
      targetId: props.userId,
      data: { role: target.role, left: leaving },
    });
    return cancelMovesOfProposer(tx, props, { orgId: props.orgId, userId: props.userId, reason: leaving ? 'proposer_left' : 'proposer_removed' });
  });
  await mailCancelledMoves({ db: props.db, mailer: props.mailer, log: props.log, moves: cancelledMoves });
}

export interface ChangeMemberRoleProps extends MoveMail {
  db: Db;
  principal: Principal;
  orgId: string;
  callerRole: OrgRole;
  userId: string;
  role: OrgRole;
  requestId: string;
}

/**
 * Changes a member's role (owners and admins, checked on the route). Only an owner grants or takes
 * `owner`; the last owner cannot step down (owner rows are locked, as for removal). A member made
 * `member` loses their pending domain moves out of the organisation, as on removal.
 */
export async function changeMemberRole(props: ChangeMemberRoleProps): Promise<{ userId: string; email: string | null; role: OrgRole }> {
  requireLiveCredential(props.principal);
  const { member, cancelledMoves } = await withTransaction(props.db, async (tx) => {
    const owners = await lockOwners(tx, props.orgId);
    const target = await findMembership(tx, props.orgId, props.userId);
    if (!target) throw new NotFoundError('Member not found');
    if ((props.role === 'owner' || target.role === 'owner') && props.callerRole !== 'owner') {
      throw new ForbiddenError('Only an owner can grant or take the owner role');
    }
    if (target.role === 'owner' && props.role !== 'owner' && owners.length <= 1) {
      throw new ConflictError('LAST_OWNER', 'The last owner cannot step down; make another member owner first');
    }
    const user = await findUserById(tx, props.userId);
    if (target.role !== props.role) {
      await updateMembershipRole(tx, props.orgId, props.userId, props.role);
      await auditCallerAction(tx, props, {
        action: 'org.member_role_changed',
        orgId: props.orgId,
        targetType: 'membership',
        targetId: props.userId,
        data: { from: target.role, to: props.role },
      });
    }
    const cancelled = losesProposerStanding(target.role, props.role)
      ? await cancelMovesOfProposer(tx, props, { orgId: props.orgId, userId: props.userId, reason: 'proposer_demoted' })
      : [];
    return { member: { userId: props.userId, email: user?.email ?? null, role: props.role }, cancelledMoves: cancelled };
  });
  await mailCancelledMoves({ db: props.db, mailer: props.mailer, log: props.log, moves: cancelledMoves });
  return member;
}
