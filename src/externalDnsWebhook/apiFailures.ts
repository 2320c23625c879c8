import { ApiError as SdkApiError } from '../../client/src/index.js';
import { ApiError, ApiErrorWithStatus, ServiceUnavailableError } from '../errors.js';
import { isErrorCode, type ErrorCode } from '../http/errorCodes.js';

/**
 * What external-dns is answered when the api refused or failed. external-dns retries only 5xx (at
 * its next run); any other failure stops its controller, so 5xx is kept for what a later try can
 * fix, and a 4xx means a person must act: a key without a scope, an invalid record, a conflict.
 */

/** Refusals that a later run, reading the zone afresh, gets past: a race with another edit, a domain gone. */
const TRANSIENT_CODES: ReadonlySet<string> = new Set(['VERSION_MISMATCH', 'IDEMPOTENCY_KEY_IN_USE', 'DOMAIN_STATE_CONFLICT', 'NOT_FOUND'] satisfies ErrorCode[]);

/** The answer for a failed call to the api; `deadline` is the signal that bounds the request. */
export function webhookFailure(err: unknown, deadline: AbortSignal): ApiError {
  if (err instanceof ApiError) return err;
  if (err instanceof SdkApiError) {
    const retryAfter: Record<string, string> = err.retryAfterSeconds === undefined ? {} : { 'Retry-After': String(err.retryAfterSeconds) };
    // Every code the api answers is in the list (a test holds the SDK's to it); one it does not know is unexpected.
    const code: ErrorCode = isErrorCode(err.code) ? err.code : 'UNEXPECTED_RESPONSE';
    const detail = `The api answered ${err.status} ${err.code}${err.requestId ? ` (request ${err.requestId})` : ''}: ${err.message.replace(/^\d+ \S+: /, '')}`;
    if (err.status === 429 || TRANSIENT_CODES.has(err.code)) return new ApiErrorWithStatus(503, code, detail, retryAfter);
    // external-dns retries 500–510; anything else the api answers past 499 is a gateway failure.
    if (err.status >= 500) return new ApiErrorWithStatus(err.status <= 510 ? err.status : 502, code, detail, retryAfter);
    return new ApiErrorWithStatus(err.status, code, typeof err.detail === 'string' ? detail : err.detail);
  }
  if (deadline.aborted) return new ServiceUnavailableError('UPSTREAM_UNAVAILABLE', 'The api did not answer within EXTERNAL_DNS_WEBHOOK_DEADLINE; external-dns retries at its next run');
  if (err instanceof TypeError) {
    // fetch says "fetch failed"; the reason (ECONNREFUSED, a certificate, a name not found) is its cause.
    const cause = err.cause instanceof Error ? `: ${(err.cause as NodeJS.ErrnoException).code ?? err.cause.message}` : '';
    return new ServiceUnavailableError('UPSTREAM_UNAVAILABLE', `The api could not be reached (${err.message}${cause})`);
  }
  throw err;
}
