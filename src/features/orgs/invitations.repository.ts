import type { Queryable } from '../../db/pool.js';

export type InvitedRole = 'admin' | 'member';

export interface Invitation {
  id: string;
  orgId: string;
  email: string;
  role: InvitedRole;
  invitedBy: string;
  createdAt: Date;
  expiresAt: Date;
  acceptedAt: Date | null;
}

/** A pending invitation as its invitee sees it: with the organisation's name. */
export interface PendingInvitation extends Invitation {
  orgName: string;
}

const COLUMNS = `i.id, i.org_id AS "orgId", i.email, i.role, i.invited_by AS "invitedBy", i.created_at AS "createdAt",
  i.expires_at AS "expiresAt", i.accepted_at AS "acceptedAt"`;

export async function insertInvitation(
  db: Queryable,
  props: { id: string; orgId: string; email: string; role: InvitedRole; invitedBy: string; expiresAt: Date },
): Promise<Invitation> {
  const { rows } = await db.query<Invitation>(
    `INSERT INTO org_invitations AS i (id, org_id, email, role, invited_by, expires_at)
     VALUES ($1, $2, $3, $4, $5, $6) RETURNING ${COLUMNS}`,
    [props.id, props.orgId, props.email, props.role, props.invitedBy, props.expiresAt],
  );
  return rows[0]!;
}

/** Pending (not accepted, not expired) invitations addressed to this e-mail, newest first. */
export async function listPendingInvitationsForEmail(db: Queryable, email: string, limit: number): Promise<PendingInvitation[]> {
  const { rows } = await db.query<PendingInvitation>(
    `SELECT ${COLUMNS}, o.name AS "orgName" FROM org_invitations i JOIN organizations o ON o.id = i.org_id
     WHERE lower(i.email) = lower($1) AND i.accepted_at IS NULL AND i.expires_at > now()
     ORDER BY i.created_at DESC, i.id DESC LIMIT $2`,
    [email, limit],
  );
  return rows;
}

/** The invitation, locked, only when it is pending and addressed to this e-mail. */
export async function lockPendingInvitation(db: Queryable, id: string, email: string): Promise<Invitation | undefined> {
  const { rows } = await db.query<Invitation>(
    `SELECT ${COLUMNS} FROM org_invitations i
     WHERE i.id = $1 AND lower(i.email) = lower($2) AND i.accepted_at IS NULL AND i.expires_at > now()
     FOR UPDATE`,
    [id, email],
  );
  return rows[0];
}

export async function markInvitationAccepted(db: Queryable, id: string, userId: string): Promise<void> {
  await db.query(`UPDATE org_invitations SET accepted_at = now(), accepted_by = $2 WHERE id = $1`, [id, userId]);
}
