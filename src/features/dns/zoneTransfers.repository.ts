import type { Queryable } from '../../db/pool.js';
import { ModeScopedTable, type Mode } from '../../db/modeScope.js';

/** One outgoing transfer of a zone: the servers that may fetch it, and the name of the TSIG key they sign with. */
export interface ZoneTransfer {
  id: string;
  domainId: string;
  orgId: string;
  livemode: boolean;
  /** `address` or `address:port` (`[v6]:port`), as given. */
  servers: string[];
  tsigName: string;
  createdAt: Date;
}

const transfers = new ModeScopedTable<ZoneTransfer>(
  'dns_zone_transfers',
  `id, domain_id AS "domainId", org_id AS "orgId", livemode, servers, tsig_name AS "tsigName", created_at AS "createdAt"`,
);

/** The domain's transfers, oldest first. */
export function findZoneTransfers(db: Queryable, mode: Mode, domainId: string): Promise<ZoneTransfer[]> {
  return transfers.select(db, mode, 'domain_id = $2', [domainId], 'ORDER BY created_at, id');
}

export async function hasZoneTransfers(db: Queryable, mode: Mode, domainId: string): Promise<boolean> {
  return (await transfers.count(db, mode, 'domain_id = $2', [domainId])) > 0;
}

export function insertZoneTransfer(db: Queryable, mode: Mode, row: Pick<ZoneTransfer, 'id' | 'domainId' | 'orgId' | 'servers' | 'tsigName'>): Promise<ZoneTransfer> {
  return transfers.insert(db, mode, { id: row.id, domain_id: row.domainId, org_id: row.orgId, servers: row.servers, tsig_name: row.tsigName });
}

export async function deleteZoneTransfer(db: Queryable, mode: Mode, domainId: string, id: string): Promise<boolean> {
  return (await transfers.delete(db, mode, 'domain_id = $2 AND id = $3', [domainId, id])) > 0;
}
