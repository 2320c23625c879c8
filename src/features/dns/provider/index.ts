import type { Config } from '../../../config.js';
import { DnsProviderUnavailableError } from './errors.js';
import type { DnsProvider } from './port.js';
import { PowerDnsProvider } from './powerdns.js';
import { SyntheticDnsProvider } from './synthetic.js';
import { instrumentPort } from '../../../metrics/upstream.js';

export type * from './port.js';

export interface DnsProviders {
  /** PowerDNS (or 503 when unconfigured) for live mode, the synthetic provider for test mode. */
  forMode(livemode: boolean): DnsProvider;
}

export function createDnsProviders(config: Pick<Config, 'dnsProvider'>, options: { timeoutMs?: number } = {}): DnsProviders {
  const live = instrumentPort(createLiveDnsProvider(config.dnsProvider, options), { system: 'dns_provider', adapter: config.dnsProvider ? 'powerdns' : 'unconfigured' });
  const test = instrumentPort(new SyntheticDnsProvider(), { system: 'dns_provider', adapter: 'synthetic' });
  return { forMode: (livemode) => (livemode ? live : test) };
}

/**
 * The provider for live keys. Without `DNS_PROVIDER_URL` every call fails with 503
 * DNS_PROVIDER_UNAVAILABLE (docs/api-guide.md, DNS), marked permanent: retrying cannot help until the
 * process is configured.
 */
export function createLiveDnsProvider(dnsProvider: Config['dnsProvider'], options: { timeoutMs?: number } = {}): DnsProvider {
  if (!dnsProvider) return unconfiguredProvider();
  return new PowerDnsProvider({ baseUrl: dnsProvider.url, apiKey: dnsProvider.token, ...options });
}

function unconfiguredProvider(): DnsProvider {
  const fail = (): Promise<never> =>
    Promise.reject(new DnsProviderUnavailableError('The live DNS provider is not configured (DNS_PROVIDER_URL, DNS_PROVIDER_TOKEN)', { transient: false }));
  return { createZone: fail, deleteZone: fail, applyChanges: fail, zoneApex: fail, signZone: fail, unsignZone: fail };
}
