import { UpstreamError } from '../../../errors.js';

/**
 * DNS_PROVIDER_UNAVAILABLE. 503 and transient when the provider could not be reached or failed
 * (connection refused, timeout, 5xx, 429); 502 and permanent when it answered but refused the
 * request (4xx: bad credentials, content it would not store), or is not configured at all (503,
 * permanent). The detail quotes the provider's own message.
 */
export class DnsProviderUnavailableError extends UpstreamError {
  constructor(detail: string, options: { status?: 502 | 503; transient?: boolean; upstreamStatus?: number; cause?: unknown } = {}) {
    super('DNS_PROVIDER_UNAVAILABLE', detail, { ...options, status: options.status ?? 503, transient: options.transient ?? (options.status ?? 503) === 503 });
  }
}

/** The provider has no zone of that name (PowerDNS answers 404); the caller may create it and retry. */
export class DnsZoneNotFoundError extends DnsProviderUnavailableError {
  constructor(readonly zone: string) {
    super(`The DNS provider has no zone ${zone}`, { status: 502, transient: false, upstreamStatus: 404 });
  }
}
