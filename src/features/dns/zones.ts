import { withTransaction, type Db, type Queryable } from '../../db/pool.js';
import { findDomainById, findDomainHoldingName, type Domain } from '../domains/domains.repository.js';
import { findZoneOwner, forgetZoneOwner, lockZone, recordZoneOwner } from './dnsZones.repository.js';
import type { DnsProvider } from './provider/index.js';

/**
 * A live zone belongs to the registration (domain row) it was made for. The provider knows zones
 * only by name, and a name outlives its registrations: when a registration ends its zone is deleted
 * by a lifecycle step that may be retried for hours while the provider is down, and meanwhile
 * someone else may register the name. So every create, replace and delete of a zone takes the
 * zone's lock and reads its owner (dns_zones) first:
 * - a registration adopts an existing zone only if it is its own (a retried creation); a zone left
 *   by an earlier registration is deleted, records and all, and made afresh;
 * - a deletion removes the zone only while it belongs to a registration that has ended, never the
 *   next holder's.
 */
const LIVE = { livemode: true } as const;
const ENDED: ReadonlySet<Domain['status']> = new Set(['failed', 'deleted']);

/** The zone at the provider is this domain's own after this (in the caller's transaction, which records it). */
export async function ensureOwnZone(tx: Queryable, provider: DnsProvider, domain: Pick<Domain, 'id' | 'name' | 'nameservers'>): Promise<{ created: boolean }> {
  await lockZone(tx, domain.name);
  const zone = { zone: domain.name, nameservers: domain.nameservers };
  if ((await findZoneOwner(tx, domain.name)) === domain.id) return provider.createZone(zone);
  await provider.deleteZone(domain.name);
  await provider.createZone(zone);
  await recordZoneOwner(tx, domain.name, domain.id);
  return { created: true };
}

/** Whether the zone of the domain's name was made for this domain (a record edit asks before changing it). */
export async function ownsZone(db: Queryable, domain: Pick<Domain, 'id' | 'name'>): Promise<boolean> {
  return (await findZoneOwner(db, domain.name)) === domain.id;
}

/**
 * The zone of the live domain holding the name, once it is active (the end of a registration or a
 * transfer), with the name servers it has now. Nothing when no active domain holds the name: a
 * creation retried after its registration ended makes nothing.
 */
export function createZoneOfHolder(db: Db, provider: DnsProvider, name: string): Promise<{ created: boolean }> {
  return withTransaction(db, async (tx) => {
    // ensureOwnZone takes the zone's lock; the holder is read by name, which the lock does not guard.
    const holder = await findDomainHoldingName(tx, LIVE, name);
    if (holder?.status !== 'active') return { created: false };
    return ensureOwnZone(tx, provider, holder);
  });
}

/**
 * Deletes the zone of that name if the registration it was made for has ended (a deleted domain's
 * lifecycle). A zone the name's next holder has made is left alone, however late this comes.
 */
export function deleteZoneOfEndedRegistration(db: Db, provider: DnsProvider, name: string): Promise<{ deleted: boolean }> {
  return withTransaction(db, async (tx) => {
    await lockZone(tx, name);
    const owner = await findZoneOwner(tx, name);
    if (!owner) return { deleted: false };
    const domain = await findDomainById(tx, LIVE, owner);
    if (domain && !ENDED.has(domain.status)) return { deleted: false };
    const deleted = await provider.deleteZone(name);
    await forgetZoneOwner(tx, name, owner);
    return deleted;
  });
}
