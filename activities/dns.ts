import { ApplicationFailure } from '@temporalio/activity';
import type { Config } from '../src/config.js';
import { ApiError } from '../src/errors.js';
import { createDnsProviders, type DnsProviders } from '../src/dnsProvider/index.js';
import { DnsProviderUnavailableError } from '../src/dnsProvider/errors.js';

export interface DnsActivityDeps {
  config: Pick<Config, 'dnsProvider'>;
  /** Default: built from `config` (PowerDNS for live mode, the synthetic provider for test mode). */
  dnsProviders?: DnsProviders;
}

/** Provider faults as Temporal sees them: 503s retry, refusals and a missing configuration do not. */
function asActivityFailure(err: unknown): unknown {
  if (err instanceof DnsProviderUnavailableError) {
    const message = typeof err.detail === 'string' ? err.detail : err.message;
    return ApplicationFailure.create({ type: err.code, message, nonRetryable: !err.transient });
  }
  if (err instanceof ApiError) return ApplicationFailure.nonRetryable(typeof err.detail === 'string' ? err.detail : err.message, err.code);
  return err;
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
  };
}
