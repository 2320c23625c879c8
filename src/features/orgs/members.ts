import { withTransaction, type Db, type Queryable } from '../../db/pool.js';
import { deleteMembership, findMembership, lockOwners, updateMembershipRole, type OrgRole } from '../../auth/memberships.js';
import { findUserById } from '../../auth/users.js';
import { auditCallerAction } from '../../audit/auditEvents.js';
import { ForbiddenError } from '../../auth/errors.js';
import type { Principal } from '../../auth/principal.js';
import { ConflictError, NotFoundError } from '../../errors.js';
import type { Logger } from '../../logger.js';
import type { Mailer } from '../../mail/mailer.js';
import { requireLiveCredential } from './liveCredential.js';

/** A member removed, leaving, or given another role (`from` and `to` the same when it did not change). */
export type MemberChange = { orgId: string; userId: string } & ({ kind: 'removed' } | { kind: 'left' } | { kind: 'role_changed'; from: OrgRole; to: OrgRole });

/** The request a membership change is made in: the caller (for audit), and what mails and logs. */
export interface MemberChangeRequest {
  db: Db;
  mailer: Mailer;
  log: Logger;
  principal: Principal;
  requestId: string;
}

/**
 * What else a membership change takes with it, given by the wiring (src/routes.ts: the domain moves
 * the member proposed are cancelled, src/features/domainMoves/proposerMoves.ts). It runs in the
 * transaction that changed the membership row, after the change; what it returns runs once that
 * transaction has committed (mail).
 */
export type MemberChangeCascade = (tx: Queryable, request: MemberChangeRequest, change: MemberChange) => Promise<() => Promise<void>>;

export interface RemoveMemberProps extends MemberChangeRequest {
  orgId: string;
  callerRole: OrgRole;
  userId: string;
  cascade: MemberChangeCascade;
}

/**
 * Removes a member, or lets a member leave. Owners and admins remove others; admins cannot remove
 * an owner; the last owner cannot leave (owner rows are locked, so two owners cannot both go at once).
 * What the change takes with it (the domain moves they proposed) is the cascade's.
 */
export async function removeMember(props: RemoveMemberProps): Promise<void> {
  requireLiveCredential(props.principal);
  const leaving = props.userId === props.principal.user.id;
  if (!leaving && props.callerRole === 'member') {
    throw new ForbiddenError('Only owners and admins can remove other members');
  }
  const afterCommit = await withTransaction(props.db, async (tx) => {
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
    return props.cascade(tx, props, { orgId: props.orgId, userId: props.userId, kind: leaving ? 'left' : 'removed' });
  });
  await afterCommit();
}

export interface ChangeMemberRoleProps extends MemberChangeRequest {
  orgId: string;
  callerRole: OrgRole;
  userId: string;
  role: OrgRole;
  cascade: MemberChangeCascade;
}

/**
 * Changes a member's role (owners and admins, checked on the route). Only an owner grants or takes
 * `owner`; the last owner cannot step down (owner rows are locked, as for removal). What the change
 * takes with it (a member made `member` loses their pending domain moves) is the cascade's.
 */
export async function changeMemberRole(props: ChangeMemberRoleProps): Promise<{ userId: string; email: string | null; role: OrgRole }> {
  requireLiveCredential(props.principal);
  const { member, afterCommit } = await withTransaction(props.db, async (tx) => {
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
    const cascaded = await props.cascade(tx, props, { orgId: props.orgId, userId: props.userId, kind: 'role_changed', from: target.role, to: props.role });
    return { member: { userId: props.userId, email: user?.email ?? null, role: props.role }, afterCommit: cascaded };
  });
  await afterCommit();
  return member;
}
