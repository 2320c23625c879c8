import type { Queryable } from '../db/pool.js';

/**
 * The organisations an API key acted in: those where a request with it passed the membership check
 * (written by findMembershipRecordingKey), oldest first.
 */
export async function listOrgIdsKeyActedIn(db: Queryable, apiKeyId: string): Promise<string[]> {
  const { rows } = await db.query<{ orgId: string }>(
    `SELECT org_id AS "orgId" FROM api_key_organizations WHERE api_key_id = $1 ORDER BY first_acted_at, org_id`,
    [apiKeyId],
  );
  return rows.map((row) => row.orgId);
}
