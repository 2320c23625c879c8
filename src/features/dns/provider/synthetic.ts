import type { DnsProvider, ZoneApex, ZoneSigningKey } from './port.js';
import { derivedP256Dnskey, dsOf, formatDnskey } from '../dnssecKeys.js';

/**
 * Test mode: no network, every change is accepted (docs/api-guide.md, Modes: test mode never calls the provider).
 * Signing answers a real P-256 key derived from the zone's name and its true DS, so a client can
 * check the DS against the DNSKEY; test zones are served by no one, so nothing is signed with it
 * (docs/api-guide.md, DNSSEC).
 */
export class SyntheticDnsProvider implements DnsProvider {
  createZone(): Promise<{ created: boolean }> {
    return Promise.resolve({ created: true });
  }

  deleteZone(): Promise<{ deleted: boolean }> {
    return Promise.resolve({ deleted: true });
  }

  applyChanges(): Promise<void> {
    return Promise.resolve();
  }

  signZone(zone: string): Promise<ZoneSigningKey> {
    const key = derivedP256Dnskey(`synthetic-dnssec|${zone.toLowerCase()}`);
    return Promise.resolve({ dnskey: formatDnskey(key), ds: dsOf(zone, key) });
  }

  unsignZone(): Promise<void> {
    return Promise.resolve();
  }

  zoneApex(): Promise<ZoneApex | undefined> {
    return Promise.resolve(undefined);
  }
}
