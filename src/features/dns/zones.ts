import { withTransaction, type Db, type Queryable } from '../../db/pool.js';
import { type Mode, modeOf } from '../../db/modeScope.js';
import { findDomainById, findFirstActiveDomainNamed, type Domain } from '../domains/index.js';
import { findEnclosingZoneOwners, findZoneOwner, forgetZoneOwner, lockZone, recordZoneOwner } from './dnsZones.repository.js';
import { dnsRecordsByRRset } from './dnsRecords.repository.js';
import { findDnssecZone, updateDnssecZone } from './dnssec.repository.js';
import { rrsetChangesInBatches } from './rrsets.js';
import { restoreTransfersAtHost } from './zoneTransferHost.js';
import type { DnsProvider, DnsProviders } from './provider/index.js';

/**
 * A zone at a DNS host belongs to the registration (domain row) it was made for, per mode: live
 * zones at the live provider, test zones at the test-mode one (DNS_TEST_PROVIDER_URL; without it
 * test zones are served by no one and none of this applies). The host knows zones only by name:
 * - a name outlives its registrations: when a registration ends its zone is deleted by a lifecycle
 *   step that may be retried for hours while the host is down, and meanwhile someone else may
 *   register the name;
 * - test names are held per organisation, so two organisations may hold the same test name while
 *   the test host serves one zone of it: the zone belongs to the first that claims it, and the
 *   others keep their records here, unserved, until it ends.
 * So every create, replace and delete of a zone takes the zone's lock and reads its owner
 * (dns_zones) first: a domain adopts a zone only if it is its own (a retried creation) or its owner
 * has ended, in which case the zone is made afresh with this domain's records; a deletion removes
 * the zone only while it belongs to a registration that has ended, never the next holder's, and
 * hands the name to that next holder at once. One organisation's edits never reach a zone served
 * for another.
 */
const ENDED: ReadonlySet<Domain['status']> = new Set(['failed', 'deleted']);

type ZoneDomain = Pick<Domain, 'id' | 'name' | 'nameservers' | 'livemode'>;

/** The host of that mode's zones; none in test mode without a test host (nothing serves them). */
export function zoneHost(providers: DnsProviders, livemode: boolean): DnsProvider | undefined {
  return providers.hosts(livemode) ? providers.forMode(livemode) : undefined;
}

/**
 * Makes the zone at the host this domain's own if it may be, in the caller's transaction (which
 * records it); `served: false` when another domain that has not ended holds it (test mode: another
 * organisation's domain of the same name), which is then left alone.
 * A zone made afresh, or found missing at the host, is given every record the domain has in one
 * change (and, in test mode, where no DS points at it, signed again when the domain's DNSSEC is on).
 */
export async function claimZone(tx: Queryable, provider: DnsProvider, domain: ZoneDomain): Promise<{ served: boolean; created: boolean }> {
  const mode = modeOf(domain.livemode);
  await lockZone(tx, mode, domain.name);
  const zone = { zone: domain.name, nameservers: domain.nameservers };
  const owner = await findZoneOwner(tx, mode, domain.name);
  if (owner === domain.id) {
    const { created } = await provider.createZone(zone);
    if (created) await fillZone(tx, provider, domain);
    return { served: true, created };
  }
  if (owner && !(await hasEnded(tx, mode, owner))) return { served: false, created: false };
  if (await insideAnotherZone(tx, domain)) return { served: false, created: false };
  await provider.deleteZone(domain.name);
  await provider.createZone(zone);
  await fillZone(tx, provider, domain);
  await recordZoneOwner(tx, mode, domain.name, domain.id);
  return { served: true, created: true };
}

/**
 * Whether a zone of another domain that has not ended encloses this name at the host: a zone made
 * here would take over that domain's names below it (`www.example.com` inside `example.com`). Such a
 * name is not registrable (src/registrableName.ts); one registered in test mode before that rule is
 * kept here and never served.
 */
async function insideAnotherZone(tx: Queryable, domain: ZoneDomain): Promise<boolean> {
  const mode = modeOf(domain.livemode);
  for (const owner of await findEnclosingZoneOwners(tx, mode, domain.name)) {
    if (owner !== domain.id && !(await hasEnded(tx, mode, owner))) return true;
  }
  return false;
}

async function hasEnded(db: Queryable, mode: Mode, domainId: string): Promise<boolean> {
  const domain = await findDomainById(db, mode, domainId);
  return !domain || ENDED.has(domain.status);
}

/**
 * A zone filled afresh is read ZONE_FILL_READ_RECORDS records at a time and sent to the host in changes
 * of about ZONE_FILL_CHANGE_RECORDS: a zone of any size is never in memory whole, and each change stays
 * far below the host's request limit. PowerDNS rectifies the whole zone after every change, so smaller
 * changes cost more time: a 56,000-record zone took 2.3 s in one change, 2.4 s in changes of 10,000
 * and 8.8 s in changes of 1,000 (docs/bench.md, Scale).
 */
export const ZONE_FILL_READ_RECORDS = 1_000;
export const ZONE_FILL_CHANGE_RECORDS = 10_000;

/**
 * A fresh zone gets the domain's records (kept here while it was not served), whole RRsets at a time,
 * its transfers to secondaries, and, in test mode, its signing. A fill that fails part way deletes the zone it began (when the host
 * lets it), so the caller's retry makes the zone afresh rather than finding it there short of records.
 */
async function fillZone(tx: Queryable, provider: DnsProvider, domain: ZoneDomain): Promise<void> {
  const mode = modeOf(domain.livemode);
  try {
    for await (const changes of rrsetChangesInBatches(dnsRecordsByRRset(tx, mode, domain.id, ZONE_FILL_READ_RECORDS), ZONE_FILL_CHANGE_RECORDS)) {
      await provider.applyChanges(domain.name, changes);
    }
  } catch (err) {
    await provider.deleteZone(domain.name).catch(() => undefined);
    throw err;
  }
  await restoreTransfersAtHost(tx, provider, domain);
  if (domain.livemode) return;
  // Live keys stay as they are: the DS at the registrar names them. No DS names a test key, so the
  // zone is signed with a key of its own and the domain shows that one.
  const dnssec = await findDnssecZone(tx, mode, domain.id);
  if (dnssec?.status !== 'active' && dnssec?.status !== 'removing') return;
  const key = await provider.signZone(domain.name);
  await updateDnssecZone(tx, mode, domain.id, { status: dnssec.status, dnskey: key.dnskey, dsRecords: [key.ds] });
}

/** Whether the zone of the domain's name at its mode's host was made for this domain (a record edit asks before changing it). */
export async function ownsZone(db: Queryable, domain: Pick<Domain, 'id' | 'name' | 'livemode'>): Promise<boolean> {
  return (await findZoneOwner(db, modeOf(domain.livemode), domain.name)) === domain.id;
}

/** Whether a DNS server answers with this domain's records: its mode has a host, and the zone there is this domain's. */
export async function isServed(db: Queryable, providers: DnsProviders, domain: Pick<Domain, 'id' | 'name' | 'livemode'>): Promise<boolean> {
  return providers.hosts(domain.livemode) && ownsZone(db, domain);
}

/**
 * The zone of a domain once it is active (the end of a registration or a transfer), with the name
 * servers it has now. The domain is the one named by id (runs started before the id was passed name
 * only the name: then the name's active holder, in test mode the earliest). Nothing when it is not active:
 * a creation retried after its registration ended makes nothing.
 */
export function createZoneOfDomain(
  db: Db,
  providers: DnsProviders,
  input: { livemode: boolean; name: string; nameservers: string[]; domainId?: string },
): Promise<{ created: boolean }> {
  const provider = zoneHost(providers, input.livemode);
  if (!provider) return providers.forMode(input.livemode).createZone({ zone: input.name, nameservers: input.nameservers });
  return withTransaction(db, async (tx) => {
    const mode = modeOf(input.livemode);
    // claimZone takes the zone's lock; the domain is read before, which the lock does not guard.
    const domain = input.domainId ? await findDomainById(tx, mode, input.domainId) : await findFirstActiveDomainNamed(tx, mode, input.name);
    if (domain?.status !== 'active' || domain.name !== input.name) return { created: false };
    return { created: (await claimZone(tx, provider, domain)).created };
  });
}

/**
 * Deletes the zone of that name if the registration it was made for has ended (a deleted domain's
 * lifecycle). A zone the name's next holder has made is left alone, however late this comes; a
 * holder still waiting for the name (test mode: another organisation's domain of it) gets the zone
 * at once, with its records.
 */
export function deleteZoneOfEndedRegistration(db: Db, providers: DnsProviders, input: { livemode: boolean; name: string }): Promise<{ deleted: boolean }> {
  const provider = zoneHost(providers, input.livemode);
  if (!provider) return providers.forMode(input.livemode).deleteZone(input.name);
  return withTransaction(db, async (tx) => {
    const mode = modeOf(input.livemode);
    await lockZone(tx, mode, input.name);
    const owner = await findZoneOwner(tx, mode, input.name);
    if (!owner || !(await hasEnded(tx, mode, owner))) return { deleted: false };
    const deleted = await provider.deleteZone(input.name);
    await forgetZoneOwner(tx, mode, input.name, owner);
    const next = await findFirstActiveDomainNamed(tx, mode, input.name);
    if (next) await claimZone(tx, provider, next);
    return deleted;
  });
}
