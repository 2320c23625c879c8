import type { Config } from '../../../config.js';
import { DnsProviderUnavailableError } from './errors.js';
import type { DnsProvider } from './port.js';
import { PowerDnsProvider } from './powerdns.js';
import { SyntheticDnsProvider } from './synthetic.js';
import { instrumentPort } from '../../../metrics/upstream.js';

export type * from './port.js';

export interface DnsProviders {
  /**
   * Live mode: PowerDNS (every call 503 when unconfigured). Test mode: the test-mode PowerDNS when
   * `DNS_TEST_PROVIDER_URL` is set, else the synthetic provider.
   */
  forMode(livemode: boolean): DnsProvider;
  /**
   * Whether that mode's zones are on a DNS server, so that whose zone each is matters
   * (src/features/dns/zones.ts): always in live mode, in test mode only with a test host.
   */
  hosts(livemode: boolean): boolean;
}

export function createDnsProviders(config: Pick<Config, 'dnsProvider'> & Partial<Pick<Config, 'dnsTestProvider'>>, options: { timeoutMs?: number } = {}): DnsProviders {
  const live = instrumentPort(createLiveDnsProvider(config.dnsProvider, options), { system: 'dns_provider', adapter: config.dnsProvider ? 'powerdns' : 'unconfigured' });
  const testHost = config.dnsTestProvider;
  const test = instrumentPort(testHost ? powerDns(testHost, options) : new SyntheticDnsProvider(), {
    system: 'dns_provider',
    adapter: testHost ? 'powerdns_test' : 'synthetic',
  });
  return { forMode: (livemode) => (livemode ? live : test), hosts: (livemode) => livemode || testHost !== undefined };
}

/**
 * The provider for live keys. Without `DNS_PROVIDER_URL` every call fails with 503
 * DNS_PROVIDER_UNAVAILABLE (docs/api-guide.md, DNS), marked permanent: retrying cannot help until the
 * process is configured.
 */
export function createLiveDnsProvider(dnsProvider: Config['dnsProvider'], options: { timeoutMs?: number } = {}): DnsProvider {
  if (!dnsProvider) return unconfiguredProvider();
  return powerDns(dnsProvider, options);
}

function powerDns(host: { url: string; token: string | undefined }, options: { timeoutMs?: number }): DnsProvider {
  return new PowerDnsProvider({ baseUrl: host.url, apiKey: host.token, ...options });
}

function unconfiguredProvider(): DnsProvider {
  const fail = (): Promise<never> =>
    Promise.reject(new DnsProviderUnavailableError('The live DNS provider is not configured (DNS_PROVIDER_URL, DNS_PROVIDER_TOKEN)', { transient: false }));
  return {
    createZone: fail,
    deleteZone: fail,
    applyChanges: fail,
    zoneApex: fail,
    signZone: fail,
    unsignZone: fail,
    putTsigKey: fail,
    deleteTsigKey: fail,
    setTransfers: fail,
    notifySecondaries: fail,
  };
}
