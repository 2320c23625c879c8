import { withTransaction, type Db } from '../../db/pool.js';
import {
  insertInvitation,
  listPendingInvitationsForEmail,
  lockPendingInvitation,
  markInvitationAccepted,
  type Invitation,
  type InvitedRole,
  type PendingInvitation,
} from './invitations.repository.js';
import { findMembership, insertMembership } from '../../auth/memberships.js';
import type { Organization } from '../../auth/organizations.js';
import { auditCallerAction } from '../../audit/auditEvents.js';
import { EmailNotVerifiedError } from '../../auth/errors.js';
import type { Principal } from '../../auth/principal.js';
import { ConflictError, NotFoundError } from '../../errors.js';
import type { Logger } from '../../logger.js';
import type { Mailer } from '../../mail/mailer.js';
import { invitationNotice } from './invitationNotice.mail.js';
import { newId } from '../../ids.js';
import { requireLiveCredential } from './liveCredential.js';

export const INVITATION_TTL_MS = 7 * 24 * 3600 * 1000;
const MAIL_WAIT_MS = 5_000;

export interface InviteMemberProps {
  db: Db;
  mailer: Mailer;
  log: Logger;
  principal: Principal;
  org: Organization;
  email: string;
  role: InvitedRole;
  requestId: string;
}

/**
 * Invites an e-mail address (owners and admins, checked on the route). Nobody is looked up: the
 * answer and the mail are the same whether or not the address has an account. A mail that cannot
 * be sent is logged; the invitation stands and the invitee finds it in GET /me/invitations.
 */
export async function inviteMember(props: InviteMemberProps): Promise<Invitation> {
  requireLiveCredential(props.principal);
  const invitation = await withTransaction(props.db, async (tx) => {
    const created = await insertInvitation(tx, {
      id: newId('inv'),
      orgId: props.org.id,
      email: props.email,
      role: props.role,
      invitedBy: props.principal.user.id,
      expiresAt: new Date(Date.now() + INVITATION_TTL_MS),
    });
    await auditCallerAction(tx, props, {
      action: 'org.member_invited',
      orgId: props.org.id,
      targetType: 'invitation',
      targetId: created.id,
      data: { email: created.email, role: created.role },
    });
    return created;
  });
  const notice = invitationNotice({
    to: invitation.email,
    invitationId: invitation.id,
    orgName: props.org.name,
    role: invitation.role,
    inviter: { name: props.principal.user.name, email: props.principal.user.email },
    expiresAt: invitation.expiresAt,
    createdAt: invitation.createdAt,
  });
  // A slow mail server does not hold the answer: past MAIL_WAIT_MS the send goes on in the background.
  const sent = props.mailer.send(notice).then(
    () => true,
    (err: unknown) => {
      props.log.error({ err, invitationId: invitation.id }, 'could not e-mail an invitation; the invitee can still find it in GET /me/invitations');
      return false;
    },
  );
  await Promise.race([sent, new Promise((resolve) => setTimeout(resolve, MAIL_WAIT_MS).unref())]);
  return invitation;
}

/**
 * Invitations waiting for the caller's e-mail. None unless the identity provider asserts that
 * address verified (`email_verified: true`): anyone can type an address into a sign-up form, and a
 * provider that sends no claim has vouched for nothing.
 */
export async function listMyInvitations(props: { db: Db; principal: Principal; limit: number }): Promise<PendingInvitation[]> {
  const { email, emailVerified } = props.principal.user;
  if (!email || emailVerified !== true) return [];
  return listPendingInvitationsForEmail(props.db, email, props.limit);
}

export interface AcceptInvitationProps {
  db: Db;
  principal: Principal;
  invitationId: string;
  requestId: string;
}

/**
 * Joins the organisation with the invited role. Only the invitee (by an e-mail the identity provider
 * asserts verified; absent or false is 403) with a live credential; an expired, accepted or someone
 * else's invitation is 404 like one that never existed.
 */
export async function acceptInvitation(props: AcceptInvitationProps): Promise<{ orgId: string; role: InvitedRole }> {
  requireLiveCredential(props.principal);
  const { user } = props.principal;
  if (!user.email) throw new NotFoundError('Invitation not found');
  return withTransaction(props.db, async (tx) => {
    const invitation = await lockPendingInvitation(tx, props.invitationId, user.email!);
    if (!invitation) throw new NotFoundError('Invitation not found');
    if (user.emailVerified !== true) throw new EmailNotVerifiedError(user.emailVerified);
    if (await findMembership(tx, invitation.orgId, user.id)) {
      throw new ConflictError('DUPLICATE', 'You are already a member of this organisation');
    }
    await insertMembership(tx, { orgId: invitation.orgId, userId: user.id, role: invitation.role });
    await markInvitationAccepted(tx, invitation.id, user.id);
    await auditCallerAction(tx, props, {
      action: 'org.member_added',
      orgId: invitation.orgId,
      targetType: 'membership',
      targetId: user.id,
      data: { role: invitation.role, invitation_id: invitation.id, invited_by: invitation.invitedBy },
    });
    return { orgId: invitation.orgId, role: invitation.role };
  });
}
