import { ApiError, createClient, type DomainClient, type KnownErrorCode } from '../../client/src/index.js';
import type { StoredRecord } from './endpointRecords.js';
import type { BatchOperation } from './zoneBatches.js';

/**
 * The calls the webhook makes, through the Browser SDK (client/): it is an API client like any
 * other, acting with its key and nothing more. The SDK's retries stay within what external-dns
 * waits for an answer (15 s by default): a `Retry-After` of a few seconds (a burst past the key's
 * per-second limit) is waited out, a longer one is passed on as 503 and external-dns retries at its
 * next run.
 */
export interface DnsApi {
  /**
   * The organisation's active domains, whatever the key may touch (listing them needs `domains:read`),
   * or the zones the configuration names (EXTERNAL_DNS_WEBHOOK_ZONES): a key restricted to
   * `allowed_records` may read the records of the domains its patterns name but not list domains.
   */
  activeDomains(signal: AbortSignal): Promise<string[]>;
  /** Every record of the domain, or `not-allowed` when the key's restrictions keep it from the domain. */
  records(domain: string, signal: AbortSignal): Promise<StoredRecord[] | 'not-allowed'>;
  applyBatch(domain: string, operations: BatchOperation[], signal: AbortSignal): Promise<void>;
}

/** The refusals that mean "not this key's domain" (allowed_domains, and record patterns that name other domains). */
const NOT_ALLOWED_CODES: ReadonlySet<string> = new Set(['DOMAIN_NOT_ALLOWED', 'RECORD_NOT_ALLOWED'] satisfies KnownErrorCode[]);
const PAGE = 100;

export function createDnsApi(props: { url: string; key: string; orgId: string; zones?: readonly string[] }): DnsApi {
  const client: DomainClient = createClient({
    baseUrl: props.url.replace(/\/$/, ''),
    token: props.key,
    retry: { maxAttempts: 3, baseDelayMs: 200, maxDelayMs: 1_000, maxRetryAfterMs: 5_000 },
  });
  const org_oid = props.orgId;

  /** Follows `next_cursor` to the end. */
  async function allPages<T>(page: (cursor: string | undefined) => Promise<{ data: T[]; next_cursor?: string | null }>): Promise<T[]> {
    const items: T[] = [];
    let cursor: string | undefined;
    do {
      const answer = await page(cursor);
      items.push(...answer.data);
      cursor = answer.next_cursor ?? undefined;
    } while (cursor);
    return items;
  }

  return {
    async activeDomains(signal) {
      if (props.zones && props.zones.length > 0) return [...props.zones];
      const domains = await allPages((cursor) => client.listDomains({ path: { org_oid }, query: { limit: PAGE, ...(cursor ? { cursor } : {}) } }, { signal }));
      return domains.filter((domain) => domain.status === 'active').map((domain) => domain.name);
    },
    async records(domain, signal) {
      try {
        return await allPages((cursor) => client.listDnsRecords({ path: { org_oid, domain }, query: { limit: PAGE, ...(cursor ? { cursor } : {}) } }, { signal }));
      } catch (err) {
        if (err instanceof ApiError && err.status === 403 && NOT_ALLOWED_CODES.has(err.code)) return 'not-allowed';
        throw err;
      }
    },
    async applyBatch(domain, operations, signal) {
      await client.batchDnsRecords({ path: { org_oid, domain }, body: { operations } }, { signal });
    },
  };
}
