import type { Logger } from '../logger.js';
import { ApiError, ValidationError } from '../errors.js';
import type { DnsApi } from './dnsApi.js';
import type { Changes, DomainFilter, Endpoint } from './protocol.js';
import { adjustEndpoint, endpointsOf, type StoredRecord } from './endpointRecords.js';
import { changesByZone, zoneBatches, type BatchOperation } from './zoneBatches.js';

/** How many domains are read at once. */
const CONCURRENCY = 4;
/**
 * How long a domain the key was refused stays unasked. Asking again at every run would cost a read
 * per such domain per minute: an organisation of 200 domains and a key for two would spend most of
 * the free plan's reads on refusals. A key widened since is seen within this, or at a restart.
 */
const REFUSAL_MEMORY_MS = 10 * 60_000;

async function mapLimited<T, R>(items: readonly T[], limit: number, run: (item: T) => Promise<R>): Promise<R[]> {
  const results: R[] = new Array<R>(items.length);
  let next = 0;
  const lane = async () => {
    while (next < items.length) {
      const index = next++;
      results[index] = await run(items[index]!);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, lane));
  return results;
}

/**
 * The provider behind external-dns's four calls (docs/external-dns.md). Its zones are the
 * organisation's active domains that the key may touch: a key restricted with `allowed_domains`
 * (or record patterns) simply sees fewer of them. Nothing is kept between calls but the zone names,
 * which `adjustEndpoints` needs and external-dns sends without, and the domains the key was refused.
 */
export class ExternalDnsProvider {
  private zones: string[] | undefined;
  /** Domains the key may not touch, until when that is taken as still true. */
  private readonly refused = new Map<string, number>();
  /** One change set at a time: two at once would each read the zone before the other wrote it. */
  private applying: Promise<unknown> = Promise.resolve();

  constructor(
    private readonly api: DnsApi,
    private readonly logger: Logger,
  ) {}

  /** Every zone the key may touch, with its records. */
  private async readZones(signal: AbortSignal): Promise<Map<string, StoredRecord[]>> {
    const now = Date.now();
    const domains = (await this.api.activeDomains(signal)).filter((domain) => (this.refused.get(domain) ?? 0) <= now);
    const read = await mapLimited(domains, CONCURRENCY, async (domain) => [domain, await this.api.records(domain, signal)] as const);
    for (const [domain, records] of read) if (records === 'not-allowed') this.refused.set(domain, now + REFUSAL_MEMORY_MS);
    const zones = new Map(read.filter((entry): entry is readonly [string, StoredRecord[]] => entry[1] !== 'not-allowed'));
    this.zones = [...zones.keys()].sort();
    return zones;
  }

  async domainFilter(signal: AbortSignal): Promise<DomainFilter> {
    await this.readZones(signal);
    return { include: this.zones ?? [], exclude: [] };
  }

  async records(signal: AbortSignal): Promise<Endpoint[]> {
    const zones = await this.readZones(signal);
    return [...zones].flatMap(([zone, records]) => endpointsOf(zone, records));
  }

  async adjustEndpoints(endpoints: Endpoint[], signal: AbortSignal): Promise<Endpoint[]> {
    // external-dns asks for its records first in every run; a provider that restarted in between reads the zones now.
    if (!this.zones) await this.readZones(signal);
    const zones = this.zones ?? [];
    return endpoints.flatMap((endpoint) => {
      const adjusted = adjustEndpoint(zones, endpoint);
      if ('endpoint' in adjusted) return [adjusted.endpoint];
      this.logger.warn({ dnsName: endpoint.dnsName, recordType: endpoint.recordType, reason: adjusted.leftOut }, 'endpoint left out: no record can hold it');
      return [];
    });
  }

  applyChanges(changes: Changes, signal: AbortSignal): Promise<void> {
    const run = this.applying.then(() => this.apply(changes, signal));
    this.applying = run.catch(() => undefined);
    return run;
  }

  /**
   * Every touched zone is read and its batches computed before any is sent, so an invalid endpoint
   * anywhere changes nothing anywhere. Then one batch per zone (all or nothing at the DNS provider).
   */
  private async apply(changes: Changes, signal: AbortSignal): Promise<void> {
    const domains = await this.api.activeDomains(signal);
    const { byZone, outside } = changesByZone(domains, changes);
    for (const endpoint of outside) {
      this.logger.warn({ dnsName: endpoint.dnsName, recordType: endpoint.recordType }, 'change skipped: the name is in none of the organisation’s active domains');
    }
    const plans: { zone: string; batches: BatchOperation[][] }[] = [];
    const issues = [];
    for (const [zone, zoneChanges] of [...byZone].sort(([a], [b]) => a.localeCompare(b))) {
      const current = await this.api.records(zone, signal);
      if (current === 'not-allowed') throw new ApiError('DOMAIN_NOT_ALLOWED', `The API key may not change records of ${zone}; restart external-dns to read its zones again`);
      const planned = zoneBatches(zone, current, zoneChanges);
      if ('issues' in planned) issues.push(...planned.issues);
      else plans.push({ zone, batches: planned.batches });
    }
    if (issues.length > 0) throw new ValidationError(issues);
    for (const { zone, batches } of plans) {
      for (const batch of batches) {
        await this.api.applyBatch(zone, batch, signal);
        this.logger.info({ zone, operations: batch.length, ...countOps(batch) }, 'changes applied');
      }
    }
  }
}

function countOps(batch: BatchOperation[]): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const operation of batch) counts[operation.op] = (counts[operation.op] ?? 0) + 1;
  return counts;
}
