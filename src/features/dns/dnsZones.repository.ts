import type { Queryable } from '../../db/pool.js';

/**
 * Which live registration (domain id) each zone at the DNS provider belongs to. Live mode only: test
 * mode has no zones. Callers hold the zone's lock (lockZone) while they read and change the owner
 * together with the zone itself.
 */

/** Serialises everything done to the zone of that name (create, replace, delete) until the transaction ends. */
export async function lockZone(db: Queryable, name: string): Promise<void> {
  await db.query(`SELECT pg_advisory_xact_lock(hashtextextended($1, 0))`, [`dns_zone|${name}`]);
}

export async function findZoneOwner(db: Queryable, name: string): Promise<string | undefined> {
  const { rows } = await db.query<{ domain_id: string }>(`SELECT domain_id FROM dns_zones WHERE name = $1`, [name]);
  return rows[0]?.domain_id;
}

export async function recordZoneOwner(db: Queryable, name: string, domainId: string): Promise<void> {
  await db.query(
    `INSERT INTO dns_zones (name, domain_id) VALUES ($1, $2)
     ON CONFLICT (name) DO UPDATE SET domain_id = EXCLUDED.domain_id, created_at = now()`,
    [name, domainId],
  );
}

export async function forgetZoneOwner(db: Queryable, name: string, domainId: string): Promise<void> {
  await db.query(`DELETE FROM dns_zones WHERE name = $1 AND domain_id = $2`, [name, domainId]);
}
