import type { DnsProvider, RRsetChange, ZoneApex, ZoneSigningKey } from './port.js';
import { derivedP256Dnskey, dsOf, formatDnskey } from '../dnssecKeys.js';

/**
 * The key a test zone no DNS server serves is answered with: a real P-256 key derived from the
 * zone's name (the same on every retry) and its true DS, so a client can check the DS against the
 * DNSKEY; it signs nothing (docs/api-guide.md, DNSSEC).
 */
export function derivedSigningKey(zone: string): ZoneSigningKey {
  const key = derivedP256Dnskey(`synthetic-dnssec|${zone.toLowerCase()}`);
  return { dnskey: formatDnskey(key), ds: dsOf(zone, key) };
}

/**
 * Test mode without a test DNS host (DNS_TEST_PROVIDER_URL): no network, every change is accepted (docs/api-guide.md, DNS).
 * Signing answers the derived key above.
 */
export class SyntheticDnsProvider implements DnsProvider {
  createZone(): Promise<{ created: boolean }> {
    return Promise.resolve({ created: true });
  }

  deleteZone(): Promise<{ deleted: boolean }> {
    return Promise.resolve({ deleted: true });
  }

  applyChanges(_zone: string, _changes: RRsetChange[]): Promise<void> {
    return Promise.resolve();
  }

  signZone(zone: string): Promise<ZoneSigningKey> {
    return Promise.resolve(derivedSigningKey(zone));
  }

  unsignZone(): Promise<void> {
    return Promise.resolve();
  }

  zoneApex(): Promise<ZoneApex | undefined> {
    return Promise.resolve(undefined);
  }

  /** No server serves the zone, so there is nothing to transfer or notify. */
  putTsigKey(): Promise<void> {
    return Promise.resolve();
  }

  deleteTsigKey(): Promise<void> {
    return Promise.resolve();
  }

  setTransfers(): Promise<void> {
    return Promise.resolve();
  }

  notifySecondaries(): Promise<void> {
    return Promise.resolve();
  }
}
