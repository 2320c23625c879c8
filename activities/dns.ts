import type { Config } from '../src/config.js';
import { createDnsProviders, type DnsProviders } from '../src/dnsProvider/index.js';
import { asActivityFailure } from './failures.js';

export interface DnsActivityDeps {
  config: Pick<Config, 'dnsProvider'>;
  /** Default: built from `config` (PowerDNS for live mode, the synthetic provider for test mode). */
  dnsProviders?: DnsProviders;
}

export function createDnsActivities(deps: DnsActivityDeps) {
  const providers = deps.dnsProviders ?? createDnsProviders(deps.config);
  return {
    /**
     * Creates the domain's zone at the DNS provider, with its name servers at the apex, once a domain
     * becomes active. Idempotent: a zone that exists already is left as it is. Test mode calls nobody.
     */
    async createDnsZone(input: { livemode: boolean; domainName: string; nameservers: string[] }): Promise<{ created: boolean }> {
      try {
        return await providers.forMode(input.livemode).createZone({ zone: input.domainName, nameservers: input.nameservers });
      } catch (err) {
        throw asActivityFailure(err);
      }
    },

    /** Deletes a deleted domain's zone at the DNS provider (README "Domain lifecycle"). Idempotent. */
    async deleteDnsZone(input: { livemode: boolean; domainName: string }): Promise<{ deleted: boolean }> {
      try {
        return await providers.forMode(input.livemode).deleteZone(input.domainName);
      } catch (err) {
        throw asActivityFailure(err);
      }
    },
  };
}
