import type { Queryable } from '../db/pool.js';
import { keyset, type PageRequest } from '../db/keyset.js';
import { SqlParams } from '../db/sqlParams.js';

export type OrgRole = 'owner' | 'admin' | 'member';

export interface Membership {
  orgId: string;
  userId: string;
  role: OrgRole;
  createdAt: Date;
}

export interface MemberView extends Membership {
  email: string | null;
  name: string | null;
}

export async function insertMembership(
  db: Queryable,
  props: { orgId: string; userId: string; role: OrgRole },
): Promise<Membership> {
  const { rows } = await db.query<Membership>(
    `INSERT INTO memberships (org_id, user_id, role) VALUES ($1, $2, $3)
     RETURNING org_id AS "orgId", user_id AS "userId", role, created_at AS "createdAt"`,
    [props.orgId, props.userId, props.role],
  );
  return rows[0]!;
}

export async function findMembership(db: Queryable, orgId: string, userId: string): Promise<Membership | undefined> {
  const { rows } = await db.query<Membership>(
    `SELECT org_id AS "orgId", user_id AS "userId", role, created_at AS "createdAt"
     FROM memberships WHERE org_id = $1 AND user_id = $2`,
    [orgId, userId],
  );
  return rows[0];
}

export async function listMembers(
  db: Queryable,
  props: { orgId: string } & PageRequest,
): Promise<MemberView[]> {
  const p = new SqlParams();
  const page = keyset(p, { time: 'm.created_at', id: 'm.user_id' }, props);
  const { rows } = await db.query<MemberView>(
    `SELECT m.org_id AS "orgId", m.user_id AS "userId", m.role, m.created_at AS "createdAt", u.email, u.name
     FROM memberships m JOIN users u ON u.id = m.user_id
     WHERE m.org_id = ${p.add(props.orgId)} AND ${page.condition}
     ${page.tail}`,
    p.values,
  );
  return rows;
}

/** Locks the organisation's owner rows, so two owners cannot both leave at once. */
export async function lockOwners(db: Queryable, orgId: string): Promise<string[]> {
  const { rows } = await db.query<{ userId: string }>(
    `SELECT user_id AS "userId" FROM memberships WHERE org_id = $1 AND role = 'owner' FOR UPDATE`,
    [orgId],
  );
  return rows.map((r) => r.userId);
}

/**
 * The member's role, its row share-locked until the transaction ends: a removal or role change of
 * that member waits for it, and one already under way is waited for.
 */
export async function lockMembershipRole(db: Queryable, orgId: string, userId: string): Promise<OrgRole | undefined> {
  const { rows } = await db.query<{ role: OrgRole }>('SELECT role FROM memberships WHERE org_id = $1 AND user_id = $2 FOR SHARE', [orgId, userId]);
  return rows[0]?.role;
}

export async function deleteMembership(db: Queryable, orgId: string, userId: string): Promise<boolean> {
  const { rowCount } = await db.query('DELETE FROM memberships WHERE org_id = $1 AND user_id = $2', [orgId, userId]);
  return rowCount === 1;
}

export async function updateMembershipRole(db: Queryable, orgId: string, userId: string, role: OrgRole): Promise<void> {
  await db.query('UPDATE memberships SET role = $3 WHERE org_id = $1 AND user_id = $2', [orgId, userId, role]);
}

/** The e-mail addresses of an organisation's owners (those the service writes to about it). */
export async function listOwnerEmails(db: Queryable, orgId: string): Promise<string[]> {
  const { rows } = await db.query<{ email: string }>(
    `SELECT u.email FROM memberships m JOIN users u ON u.id = m.user_id
     WHERE m.org_id = $1 AND m.role = 'owner' AND u.email IS NOT NULL ORDER BY u.email`,
    [orgId],
  );
  return rows.map((r) => r.email);
}

/** Who is told about the organisation's domains: its owners and admins that have an e-mail address. */
export async function listOwnerAndAdminEmails(db: Queryable, orgId: string): Promise<{ email: string; name: string | null }[]> {
  const { rows } = await db.query<{ email: string; name: string | null }>(
    `SELECT u.email, u.name FROM memberships m JOIN users u ON u.id = m.user_id
     WHERE m.org_id = $1 AND m.role IN ('owner', 'admin') AND u.email IS NOT NULL
     ORDER BY m.created_at, m.user_id`,
    [orgId],
  );
  return rows;
}
