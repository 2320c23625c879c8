import type { Queryable } from '../../db/pool.js';
import type { Mode } from '../../db/modeScope.js';

/**
 * Which registration (domain id) each zone at a DNS host belongs to, per mode: live zones at the
 * live provider, test zones at the test-mode one (src/features/dns/zones.ts). Callers hold the
 * zone's lock (lockZone) while they read and change the owner together with the zone itself.
 */

/**
 * Serialises everything done to the zone of that name in that mode (create, replace, delete) until
 * the transaction ends. The live key is the one earlier releases took, so processes of both during a
 * rolling deploy still exclude each other.
 */
export async function lockZone(db: Queryable, mode: Mode, name: string): Promise<void> {
  await db.query(`SELECT pg_advisory_xact_lock(hashtextextended($1, 0))`, [mode.livemode ? `dns_zone|${name}` : `dns_zone|test|${name}`]);
}

export async function findZoneOwner(db: Queryable, mode: Mode, name: string): Promise<string | undefined> {
  const { rows } = await db.query<{ domain_id: string }>(`SELECT domain_id FROM dns_zones WHERE livemode = $1 AND name = $2`, [mode.livemode, name]);
  return rows[0]?.domain_id;
}

/** The owners of the zones of that mode at the names enclosing `name` (its parent, its parent's parent, …). */
export async function findEnclosingZoneOwners(db: Queryable, mode: Mode, name: string): Promise<string[]> {
  const labels = name.split('.');
  const enclosing = labels.slice(1, -1).map((_, i) => labels.slice(i + 1).join('.'));
  if (enclosing.length === 0) return [];
  const { rows } = await db.query<{ domain_id: string }>(`SELECT domain_id FROM dns_zones WHERE livemode = $1 AND name = ANY($2)`, [mode.livemode, enclosing]);
  return rows.map((row) => row.domain_id);
}

export async function recordZoneOwner(db: Queryable, mode: Mode, name: string, domainId: string): Promise<void> {
  await db.query(
    `INSERT INTO dns_zones (livemode, name, domain_id) VALUES ($1, $2, $3)
     ON CONFLICT (livemode, name) DO UPDATE SET domain_id = EXCLUDED.domain_id, created_at = now()`,
    [mode.livemode, name, domainId],
  );
}

export async function forgetZoneOwner(db: Queryable, mode: Mode, name: string, domainId: string): Promise<void> {
  await db.query(`DELETE FROM dns_zones WHERE livemode = $1 AND name = $2 AND domain_id = $3`, [mode.livemode, name, domainId]);
}
