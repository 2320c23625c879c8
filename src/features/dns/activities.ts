import type { Config } from '../../config.js';
import type { Db } from '../../db/pool.js';
import { createDnsProviders, type DnsProviders } from './provider/index.js';
import { createZoneOfHolder, deleteZoneOfEndedRegistration } from './zones.js';
import { asActivityFailure } from '../../temporal/activityFailures.js';

export interface DnsActivityDeps {
  config: Pick<Config, 'dnsProvider'>;
  /** Which registration each live zone belongs to (src/features/dns/zones.ts). */
  db: Db;
  /** Default: built from `config` (PowerDNS for live mode, the synthetic provider for test mode). */
  dnsProviders?: DnsProviders;
}

/**
 * The zone activities take the domain's name only (that is what workflows already running send);
 * which registration a live zone is for is read from our database under the zone's lock. Test mode
 * has no zones and calls nobody.
 */
export function createDnsActivities(deps: DnsActivityDeps) {
  const providers = deps.dnsProviders ?? createDnsProviders(deps.config);
  return {
    /**
     * Creates the zone of the live domain now holding the name, with its name servers at the apex,
     * once it is active. A zone of its own is left as it is (a retry); one an earlier registration
     * of the name left behind is replaced, records and all.
     */
    async createDnsZone(input: { livemode: boolean; domainName: string; nameservers: string[] }): Promise<{ created: boolean }> {
      try {
        if (!input.livemode) return await providers.forMode(false).createZone({ zone: input.domainName, nameservers: input.nameservers });
        return await createZoneOfHolder(deps.db, providers.forMode(true), input.domainName);
      } catch (err) {
        throw asActivityFailure(err);
      }
    },

    /**
     * Deletes a deleted domain's zone (docs/api-guide.md, Operations and workflows), only while the zone still belongs
     * to a registration that has ended: never the zone of whoever registered the name since.
     */
    async deleteDnsZone(input: { livemode: boolean; domainName: string }): Promise<{ deleted: boolean }> {
      try {
        if (!input.livemode) return await providers.forMode(false).deleteZone(input.domainName);
        return await deleteZoneOfEndedRegistration(deps.db, providers.forMode(true), input.domainName);
      } catch (err) {
        throw asActivityFailure(err);
      }
    },
  };
}
