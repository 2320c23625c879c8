import type { Config } from '../../config.js';
import type { Db } from '../../db/pool.js';
import { createDnsProviders, type DnsProviders } from './provider/index.js';
import { createZoneOfDomain, deleteZoneOfEndedRegistration } from './zones.js';
import { asActivityFailure } from '../../temporal/activityFailures.js';

export interface DnsActivityDeps {
  config: Pick<Config, 'dnsProvider'> & Partial<Pick<Config, 'dnsTestProvider'>>;
  /** Which registration each zone belongs to (src/features/dns/zones.ts). */
  db: Db;
  /** Default: built from `config` (src/features/dns/provider/index.ts). */
  dnsProviders?: DnsProviders;
}

/**
 * The zone activities. Which registration a zone is for is read from our database under the zone's
 * lock: by the domain's id when the workflow sends it, else (runs started before it did) by name.
 * Test mode without a test DNS host has no zones and calls nobody.
 */
export function createDnsActivities(deps: DnsActivityDeps) {
  const providers = deps.dnsProviders ?? createDnsProviders(deps.config);
  return {
    /**
     * Creates the zone of the domain, with its name servers at the apex, once it is active. A zone
     * of its own is left as it is (a retry); one an earlier registration of the name left behind is
     * replaced, records and all; one another test domain of the name holds is left alone.
     */
    async createDnsZone(input: { livemode: boolean; domainName: string; nameservers: string[]; domainId?: string }): Promise<{ created: boolean }> {
      try {
        return await createZoneOfDomain(deps.db, providers, { livemode: input.livemode, name: input.domainName, nameservers: input.nameservers, domainId: input.domainId });
      } catch (err) {
        throw asActivityFailure(err);
      }
    },

    /**
     * Deletes a deleted domain's zone (docs/api-guide.md, Operations and workflows), only while the zone still belongs
     * to a registration that has ended: never the zone of whoever holds the name since.
     */
    async deleteDnsZone(input: { livemode: boolean; domainName: string }): Promise<{ deleted: boolean }> {
      try {
        return await deleteZoneOfEndedRegistration(deps.db, providers, { livemode: input.livemode, name: input.domainName });
      } catch (err) {
        throw asActivityFailure(err);
      }
    },
  };
}

export type DnsActivities = ReturnType<typeof createDnsActivities>;
