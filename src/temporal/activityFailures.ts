import { ApplicationFailure } from '@temporalio/activity';
import { ApiError, UpstreamError } from '../errors.js';

/**
 * The one conversion of our errors into Temporal failures. The failure type is our stable error
 * code, so a workflow records it as is. An upstream fault retries when transient, after the delay
 * the upstream asked for (`Retry-After`); every other ApiError is a refusal no retry can change;
 * anything else (a bug, a database outage) is left to Temporal's retry policy.
 */
export function asActivityFailure(err: unknown): unknown {
  if (err instanceof UpstreamError) {
    return ApplicationFailure.create({
      type: err.code,
      message: detailOf(err),
      nonRetryable: !err.transient,
      ...(err.retryAfterSeconds !== undefined ? { nextRetryDelay: `${err.retryAfterSeconds}s` } : {}),
    });
  }
  if (err instanceof ApiError) return ApplicationFailure.nonRetryable(detailOf(err), err.code);
  return err;
}

function detailOf(err: ApiError): string {
  return typeof err.detail === 'string' ? err.detail : err.message;
}
