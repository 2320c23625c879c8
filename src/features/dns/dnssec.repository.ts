import type { Queryable } from '../../db/pool.js';
import { ModeScopedTable, type Mode } from '../../db/modeScope.js';
import type { DsRecord } from './dnssecKeys.js';

/** `off`: unsigned; `signing`: a POST is being carried out; `active`: signed, DS published; `removing`: a DELETE is. */
export type DnssecStatus = 'off' | 'signing' | 'active' | 'removing';

export interface DnssecZone {
  domainId: string;
  orgId: string;
  livemode: boolean;
  status: DnssecStatus;
  dsRecords: DsRecord[];
  /** The zone's key, `257 3 13 <base64>`; null while off. */
  dnskey: string | null;
  /** The operation moving it now (signing, removing), or the last one that did. */
  operationId: string | null;
  createdAt: Date;
  updatedAt: Date;
}

const zones = new ModeScopedTable<DnssecZone>(
  'dnssec_zones',
  `domain_id AS "domainId", org_id AS "orgId", livemode, status, ds_records AS "dsRecords", dnskey,
   operation_id AS "operationId", created_at AS "createdAt", updated_at AS "updatedAt"`,
);

export function findDnssecZone(db: Queryable, mode: Mode, domainId: string): Promise<DnssecZone | undefined> {
  return zones.findOne(db, mode, 'domain_id = $2', [domainId]);
}

/**
 * The domain's row, created `off` when it has none, locked until the transaction ends: a POST and a
 * DELETE of one domain, or two of either, decide one after the other.
 */
export async function lockDnssecZone(db: Queryable, mode: Mode, props: { domainId: string; orgId: string }): Promise<DnssecZone> {
  await zones.insertIfAbsent(db, mode, { domain_id: props.domainId, org_id: props.orgId, status: 'off' });
  const [row] = await zones.select(db, mode, 'domain_id = $2', [props.domainId], 'FOR UPDATE');
  if (!row) throw new Error(`dnssec_zones row of ${props.domainId} vanished under its lock`);
  return row;
}

export async function updateDnssecZone(
  db: Queryable,
  mode: Mode,
  domainId: string,
  changes: { status: DnssecStatus; operationId?: string; dsRecords?: DsRecord[]; dnskey?: string | null },
): Promise<DnssecZone | undefined> {
  const [row] = await zones.update(
    db,
    mode,
    'domain_id = $2',
    [domainId],
    {
      status: changes.status,
      ...(changes.operationId !== undefined ? { operation_id: changes.operationId } : {}),
      ...(changes.dsRecords !== undefined ? { ds_records: JSON.stringify(changes.dsRecords) } : {}),
      ...(changes.dnskey !== undefined ? { dnskey: changes.dnskey } : {}),
    },
    { now: ['updated_at'] },
  );
  return row;
}
