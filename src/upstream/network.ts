/**
 * How every upstream client (registrar, DNS provider, GitHub) reads a failed call: one classifier
 * for socket-level failures and one `Retry-After` parser.
 */

/** Socket-level failures that say nothing about the request itself (Node and undici codes). */
const TRANSIENT_NETWORK_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ECONNABORTED',
  'ETIMEDOUT',
  'EPIPE',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'ENETDOWN',
  'EAI_AGAIN',
  'ENOTFOUND',
  'UND_ERR_SOCKET',
  'UND_ERR_CLOSED',
  'UND_ERR_CONNECT_TIMEOUT',
  'UND_ERR_HEADERS_TIMEOUT',
  'UND_ERR_BODY_TIMEOUT',
]);

/** The socket error's code (`ECONNREFUSED`…), looking through `cause` and AggregateError (one per address tried). */
export function networkCode(err: unknown, depth = 0): string | undefined {
  if (!(err instanceof Error) || depth > 5) return undefined;
  const code = (err as { code?: unknown }).code;
  if (typeof code === 'string') return code;
  if (err instanceof AggregateError) {
    for (const inner of err.errors) {
      const found = networkCode(inner, depth + 1);
      if (found) return found;
    }
  }
  return networkCode(err.cause, depth + 1);
}

/** A timeout or a connection failure anywhere in the `cause` chain (or AggregateError): retrying may succeed. */
export function isNetworkFailure(err: unknown, depth = 0): boolean {
  if (!(err instanceof Error) || depth > 5) return false;
  if (err.name === 'TimeoutError') return true;
  const code = (err as { code?: unknown }).code;
  if (typeof code === 'string' && TRANSIENT_NETWORK_CODES.has(code)) return true;
  if (err instanceof AggregateError && err.errors.some((inner) => isNetworkFailure(inner, depth + 1))) return true;
  return isNetworkFailure(err.cause, depth + 1);
}

/** Seconds to wait from a `Retry-After` header (seconds or an HTTP date); undefined when absent or unreadable. */
export function parseRetryAfter(headers: Headers, now: number): number | undefined {
  const value = headers.get('retry-after')?.trim();
  if (!value) return undefined;
  if (/^\d+$/.test(value)) return Number(value);
  const date = Date.parse(value);
  return Number.isNaN(date) ? undefined : Math.max(0, Math.ceil((date - now) / 1000));
}
