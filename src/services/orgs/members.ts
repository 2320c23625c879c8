import { withTransaction, type Db } from '../../db/pool.js';
import {
  deleteMembership,
  findMembership,
  insertMembership,
  lockOwners,
  type MemberView,
  type OrgRole,
} from '../../db/repositories/memberships.js';
import { findUserByEmail } from '../../db/repositories/users.js';
import { actorOf, insertAuditEvent } from '../../db/repositories/auditEvents.js';
import { ForbiddenError } from '../../auth/errors.js';
import type { Principal } from '../../auth/principal.js';
import { ConflictError, NotFoundError } from '../../errors.js';

export interface AddMemberProps {
  db: Db;
  principal: Principal;
  orgId: string;
  email: string;
  role: Exclude<OrgRole, 'owner'>;
  requestId: string;
}

/** Adds a user who has signed in at least once; owners and admins only (checked on the route). */
export async function addMember(props: AddMemberProps): Promise<MemberView> {
  const user = await findUserByEmail(props.db, props.email);
  if (!user) {
    throw new NotFoundError(`No user with the e-mail ${props.email} has signed in yet; they must sign in once first`);
  }
  return withTransaction(props.db, async (tx) => {
    if (await findMembership(tx, props.orgId, user.id)) {
      throw new ConflictError('DUPLICATE', `${props.email} is already a member of this organisation`);
    }
    const membership = await insertMembership(tx, { orgId: props.orgId, userId: user.id, role: props.role });
    await insertAuditEvent(tx, {
      action: 'org.member_added',
      ...actorOf(props.principal),
      orgId: props.orgId,
      targetType: 'membership',
      targetId: user.id,
      data: { role: props.role },
      requestId: props.requestId,
    });
    return { ...membership, email: user.email, name: user.name };
  });
}

export interface RemoveMemberProps {
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
 */
export async function removeMember(props: RemoveMemberProps): Promise<void> {
  const leaving = props.userId === props.principal.user.id;
  if (!leaving && props.callerRole === 'member') {
    throw new ForbiddenError('Only owners and admins can remove other members');
  }
  await withTransaction(props.db, async (tx) => {
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
    await insertAuditEvent(tx, {
      action: 'org.member_removed',
      ...actorOf(props.principal),
      orgId: props.orgId,
      targetType: 'membership',
      targetId: props.userId,
      data: { role: target.role, left: leaving },
      requestId: props.requestId,
    });
  });
}
