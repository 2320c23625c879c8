import type { Queryable } from '../db/pool.js';
import { keyset, type PageRequest } from '../db/keyset.js';
import { SqlParams } from '../db/sqlParams.js';
import type { OrgRole } from './memberships.js';

export type Plan = 'free' | 'pro' | 'enterprise';

export interface Organization {
  id: string;
  name: string;
  plan: Plan;
  createdAt: Date;
}

const COLUMNS = 'o.id, o.name, o.plan, o.created_at AS "createdAt"';

export async function insertOrganization(db: Queryable, org: { id: string; name: string }): Promise<Organization> {
  const { rows } = await db.query<Organization>(
    `INSERT INTO organizations AS o (id, name) VALUES ($1, $2) RETURNING ${COLUMNS}`,
    [org.id, org.name],
  );
  return rows[0]!;
}

export async function findOrganization(db: Queryable, id: string): Promise<Organization | undefined> {
  const { rows } = await db.query<Organization>(`SELECT ${COLUMNS} FROM organizations o WHERE o.id = $1`, [id]);
  return rows[0];
}

const MEMBERSHIP = `SELECT ${COLUMNS}, m.role FROM memberships m JOIN organizations o ON o.id = m.org_id WHERE m.org_id = $1 AND m.user_id = $2`;

function toMembership(row: (Organization & { role: OrgRole }) | undefined): { role: OrgRole; org: Organization } | undefined {
  if (!row) return undefined;
  const { role, ...org } = row;
  return { role, org };
}

/** The caller's role in an organisation and the organisation itself, in one round trip; undefined when not a member. */
export async function findMembershipWithOrganization(db: Queryable, orgId: string, userId: string): Promise<{ role: OrgRole; org: Organization } | undefined> {
  const { rows } = await db.query<Organization & { role: OrgRole }>(MEMBERSHIP, [orgId, userId]);
  return toMembership(rows[0]);
}

/**
 * findMembershipWithOrganization for a request made with an API key, which the same statement
 * records as having acted in the organisation when the user is a member (api_key_organizations).
 */
export async function findMembershipRecordingKey(
  db: Queryable,
  orgId: string,
  userId: string,
  apiKeyId: string,
): Promise<{ role: OrgRole; org: Organization } | undefined> {
  const { rows } = await db.query<Organization & { role: OrgRole }>(
    `WITH member AS (${MEMBERSHIP}),
     acted AS (INSERT INTO api_key_organizations (api_key_id, org_id) SELECT $3, id FROM member ON CONFLICT DO NOTHING)
     SELECT * FROM member`,
    [orgId, userId, apiKeyId],
  );
  return toMembership(rows[0]);
}

export async function listOrganizationsOfUser(
  db: Queryable,
  props: { userId: string } & PageRequest,
): Promise<(Organization & { role: OrgRole })[]> {
  const p = new SqlParams();
  const page = keyset(p, { time: 'o.created_at', id: 'o.id' }, props);
  const { rows } = await db.query<Organization & { role: OrgRole }>(
    `SELECT ${COLUMNS}, m.role FROM memberships m JOIN organizations o ON o.id = m.org_id
     WHERE m.user_id = ${p.add(props.userId)} AND ${page.condition}
     ${page.tail}`,
    p.values,
  );
  return rows;
}

/** The best plan among the user's organisations: what rate limits scale by off org paths. */
export async function bestPlanOfUser(db: Queryable, userId: string): Promise<Plan> {
  const { rows } = await db.query<{ plan: Plan }>(
    `SELECT o.plan FROM memberships m JOIN organizations o ON o.id = m.org_id WHERE m.user_id = $1
     ORDER BY CASE o.plan WHEN 'enterprise' THEN 3 WHEN 'pro' THEN 2 ELSE 1 END DESC LIMIT 1`,
    [userId],
  );
  return rows[0]?.plan ?? 'free';
}

/** The plan of an organisation, only when the user is a member of it (a stranger learns nothing). */
export async function planOfMemberOrg(db: Queryable, orgId: string, userId: string): Promise<Plan | undefined> {
  const { rows } = await db.query<{ plan: Plan }>(
    `SELECT o.plan FROM memberships m JOIN organizations o ON o.id = m.org_id WHERE m.org_id = $1 AND m.user_id = $2`,
    [orgId, userId],
  );
  return rows[0]?.plan;
}
