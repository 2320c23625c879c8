import type { Queryable } from '../../db/pool.js';
import { modeOf } from '../../db/modeScope.js';
import type { Domain } from '../domains/index.js';
import type { DnsProvider } from './provider/index.js';
import { findZoneTransfers, hasZoneTransfers } from './zoneTransfers.repository.js';

type ZoneDomain = Pick<Domain, 'id' | 'name' | 'livemode'>;

/**
 * Tells the host who may transfer the zone: every transfer's key and servers (docs/api-guide.md,
 * Secondary DNS). Called when a transfer is added or removed, and when the zone is made afresh
 * (a new zone at the host has none of its old settings).
 */
export async function sendTransfersToHost(db: Queryable, provider: DnsProvider, domain: ZoneDomain): Promise<void> {
  const transfers = await findZoneTransfers(db, modeOf(domain.livemode), domain.id);
  await provider.setTransfers(domain.name, {
    servers: [...new Set(transfers.flatMap((t) => t.servers))],
    keyNames: transfers.map((t) => t.tsigName),
  });
  if (transfers.length > 0) await provider.notifySecondaries(domain.name);
}

/** A zone made afresh at the host gets its transfers again, if it has any. */
export async function restoreTransfersAtHost(db: Queryable, provider: DnsProvider, domain: ZoneDomain): Promise<void> {
  if (await hasZoneTransfers(db, modeOf(domain.livemode), domain.id)) await sendTransfersToHost(db, provider, domain);
}

/** After a change at the host: the zone's secondaries are told at once (NOTIFY), if it has any. */
export async function notifyTransfers(db: Queryable, provider: DnsProvider, domain: ZoneDomain): Promise<void> {
  if (await hasZoneTransfers(db, modeOf(domain.livemode), domain.id)) await provider.notifySecondaries(domain.name);
}
