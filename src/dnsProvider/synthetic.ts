import type { DnsProvider } from './port.js';

/** Test mode: no network, every change is accepted (contract section 3). */
export class SyntheticDnsProvider implements DnsProvider {
  createZone(): Promise<{ created: boolean }> {
    return Promise.resolve({ created: true });
  }

  replaceRRset(): Promise<void> {
    return Promise.resolve();
  }

  deleteRRset(): Promise<void> {
    return Promise.resolve();
  }

  applyChanges(): Promise<void> {
    return Promise.resolve();
  }
}
