/**
 * The errors domains refuses with, beside it: each names its code of the one list
 * (src/http/errorCodes.ts), whose entry gives the HTTP status, and its words.
 */
import { ConflictError, ServiceUnavailableError } from '../../errors.js';

/** 409: the charge is higher than the `max_price` the caller agreed to; nothing was reserved. */
export class PriceExceedsMaxError extends ConflictError {
  constructor(amount: number, maxPrice: number) {
    super('PRICE_EXCEEDS_MAX', `This would charge ${amount}, more than max_price ${maxPrice} (USD minor units); nothing was reserved`);
  }
}

/**
 * 503: the registrar's availability checks are paced across all processes to stay within its
 * limits, and this one could not be sent in time. In a bulk answer it is the error of a name's slot.
 */
export class UpstreamRateLimitedError extends ServiceUnavailableError {
  constructor(readonly retryAfterSeconds: number) {
    super(
      'UPSTREAM_RATE_LIMITED',
      `The registrar's availability checks are paced to stay within its limits; retry after ${retryAfterSeconds} s`,
      retryAfterSeconds,
    );
  }
}
