import type { DnsProvider, ZoneApex } from './port.js';

/** Test mode: no network, every change is accepted (docs/api-guide.md, Modes: test mode never calls the provider). */
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

  zoneApex(): Promise<ZoneApex | undefined> {
    return Promise.resolve(undefined);
  }
}
