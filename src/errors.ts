/**
 * Every error the API renders is an ApiError: it carries its HTTP status and stable `code`,
 * so the one error middleware never has to guess.
 */
export interface FieldError {
  loc: string[];
  msg: string;
  type: string;
}

export type ErrorDetail = string | FieldError[];

export class ApiError extends Error {
  readonly headers: Record<string, string>;

  constructor(
    readonly status: number,
    readonly code: string,
    readonly detail: ErrorDetail,
    headers: Record<string, string> = {},
  ) {
    super(typeof detail === 'string' ? detail : `${code}: ${detail.map((e) => e.msg).join('; ')}`);
    this.name = new.target.name;
    this.headers = headers;
  }

  toBody(): { detail: ErrorDetail; code?: string } {
    return { detail: this.detail, code: this.code };
  }
}

/**
 * An upstream (registrar, DNS provider) failed us. `transient`: retrying may succeed (it could not be
 * reached, timed out, answered 5xx or 429); `retryAfterSeconds`: how long it asked us to wait. One
 * conversion turns these into Temporal failures (src/temporal/activityFailures.ts).
 */
export class UpstreamError extends ApiError {
  readonly transient: boolean;
  readonly retryAfterSeconds: number | undefined;
  readonly upstreamStatus: number | undefined;

  constructor(
    status: number,
    code: string,
    detail: string,
    options: { transient: boolean; retryAfterSeconds?: number; upstreamStatus?: number; cause?: unknown; headers?: Record<string, string> },
  ) {
    super(status, code, detail, options.headers ?? {});
    this.transient = options.transient;
    this.retryAfterSeconds = options.retryAfterSeconds;
    this.upstreamStatus = options.upstreamStatus;
    if (options.cause !== undefined) this.cause = options.cause;
  }
}

/** 400: the body could not be read as JSON (malformed, or not sent as application/json). */
export class InvalidJsonError extends ApiError {
  constructor(msg: string, type = 'json_invalid') {
    super(400, 'INVALID_JSON', [{ loc: ['body'], msg, type }]);
  }
}

/** 415: the body is compressed (`Content-Encoding` other than identity); send it uncompressed. */
export class UnsupportedEncodingError extends ApiError {
  constructor(encoding: string) {
    super(415, 'INVALID_JSON', [
      {
        loc: ['header', 'content-encoding'],
        msg: `Content-Encoding ${encoding.slice(0, 40)} is not supported; send the body uncompressed`,
        type: 'content_encoding_unsupported',
      },
    ]);
  }
}

/** 422: the input parsed but does not match the route's schema. */
export class ValidationError extends ApiError {
  constructor(errors: FieldError[]) {
    super(422, 'VALIDATION_ERROR', errors);
  }
}

/** 401 on a route authenticated by a signature (a webhook), not a bearer token. */
export class InvalidSignatureError extends ApiError {
  constructor(detail: string) {
    super(401, 'INVALID_SIGNATURE', detail);
  }
}

/** 403 from the codec server: a browser page on an origin other than the Temporal Web UI's. */
export class OriginNotAllowedError extends ApiError {
  constructor(origin: string) {
    super(403, 'ORIGIN_NOT_ALLOWED', `Origin ${origin} may not use this codec server; see CODEC_SERVER_CORS_ORIGINS`);
  }
}

/** 422 from the codec server: a payload sealed with a key it does not have, or altered. */
export class PayloadNotDecodableError extends ApiError {
  constructor(detail: string) {
    super(422, 'PAYLOAD_NOT_DECODABLE', detail);
  }
}

export class NotFoundError extends ApiError {
  constructor(detail = 'Not found') {
    super(404, 'NOT_FOUND', detail);
  }
}

export class MethodNotAllowedError extends ApiError {
  constructor(allowed: string[]) {
    super(405, 'METHOD_NOT_ALLOWED', `Method not allowed. Allowed: ${allowed.join(', ')}`, {
      Allow: allowed.join(', '),
    });
  }
}

/** 413, and the connection closed once answered: the rest of the body is never read. */
export class PayloadTooLargeError extends ApiError {
  constructor(limitBytes: number) {
    super(413, 'PAYLOAD_TOO_LARGE', `Request body exceeds the limit of ${limitBytes} bytes`, { Connection: 'close' });
  }
}

/** 402: the balance's `available` is short of what an action costs; nothing was reserved. */
export class InsufficientFundsError extends ApiError {
  constructor(
    readonly available: number,
    readonly needed: number,
    currency = 'USD',
  ) {
    super(
      402,
      'INSUFFICIENT_FUNDS',
      `Insufficient funds: ${available} available, ${needed} needed (${currency} minor units). Top up the balance and retry.`,
    );
  }
}

/**
 * 402: the charge would take a month's spending (captured plus reserved, this calendar month in UTC)
 * past a monthly spending limit; `limit` names which (the organisation's in this mode, or the key's).
 */
export class SpendLimitReachedError extends ApiError {
  constructor(props: { limit: string; monthlyLimit: number; spent: number; amount: number }) {
    super(
      402,
      'SPEND_LIMIT_REACHED',
      `${props.limit} of ${props.monthlyLimit} (USD minor units) would be exceeded: ${props.spent} spent or reserved this month, ` +
        `${props.amount} more asked. Nothing was reserved; raise the limit or wait for next month.`,
    );
  }
}

/**
 * 403: live money must be paid for. A live top-up through the API is refused until a payment provider
 * is wired; an operator credits a live balance with `npm run billing:credit` (src/cli/billingCredit.ts).
 */
export class PaymentRequiredForLiveTopUpError extends ApiError {
  constructor() {
    super(
      403,
      'PAYMENT_REQUIRED_FOR_LIVE_TOP_UP',
      'A live balance holds only money that was paid; live top-ups through the API are not available. Contact support to credit your live balance, or use a test key for a free test-mode top-up.',
    );
  }
}

export class ConflictError extends ApiError {
  constructor(code: string, detail: string) {
    super(409, code, detail);
  }
}

/** 409: the organisation, or the caller within it, has as many event streams open in this mode as it may; one must end first. */
export class EventStreamLimitError extends ConflictError {
  constructor(props: { limit: number; whose: 'organization' | 'user' }) {
    const holder = props.whose === 'organization' ? 'This organisation already has' : 'You already have';
    super(
      'EVENT_STREAM_LIMIT',
      `${holder} ${props.limit} event streams open in this organisation and mode, the most ${props.whose === 'organization' ? 'it' : 'one member'} may have; ` +
        'end one (or wait a minute for one that was cut off) first',
    );
  }
}

/**
 * 409: so many of the organisation's webhook deliveries in this mode wait for their endpoints that
 * nothing more may be added until they drain: waiting does not mend it, a failing endpoint fixed or
 * disabled does, so no Retry-After.
 */
export class WebhookBacklogLimitError extends ConflictError {
  constructor(limit: number) {
    super(
      'WEBHOOK_BACKLOG_LIMIT',
      `This organisation has ${limit} webhook deliveries in this mode waiting for their endpoints, the most it may have; nothing that emits an event ` +
        'is accepted until some are delivered. Fix the failing endpoint (its deliveries show why) or disable it: its waiting deliveries then stop counting',
    );
  }
}

/** 409: the organisation has as many webhook endpoints in this mode as it may; one must go first. */
export class WebhookEndpointLimitError extends ConflictError {
  constructor(limit: number) {
    super('WEBHOOK_ENDPOINT_LIMIT', `This organisation already has ${limit} webhook endpoints in this mode, the most it may have; delete one it no longer uses first`);
  }
}

/** 409: the charge is higher than the `max_price` the caller agreed to; nothing was reserved. */
export class PriceExceedsMaxError extends ConflictError {
  constructor(amount: number, maxPrice: number) {
    super('PRICE_EXCEEDS_MAX', `This would charge ${amount}, more than max_price ${maxPrice} (USD minor units); nothing was reserved`);
  }
}

/** 409: `If-Match` named a version other than the current one; the detail says which is current. */
export class VersionMismatchError extends ConflictError {
  constructor(props: { resource: string; current: number; expected: number }) {
    super(
      'VERSION_MISMATCH',
      `The ${props.resource} is at version ${props.current}, not ${props.expected}; fetch it again and retry with If-Match: "${props.current}"`,
    );
  }
}

/** 503 for a dependency that is down; safe to retry. */
export class ServiceUnavailableError extends ApiError {
  constructor(code: string, detail: string, retryAfterSeconds?: number) {
    super(503, code, detail, retryAfterSeconds ? { 'Retry-After': String(retryAfterSeconds) } : {});
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

/** 429: the caller's group limit is spent; `Retry-After` says when to come back. */
export class RateLimitedError extends ApiError {
  constructor(props: { group: string; perMinute: number; perSecond: number; retryAfterSeconds: number }) {
    super(
      429,
      'RATE_LIMITED',
      `Rate limit exceeded for ${props.group} requests (${props.perMinute} per minute, ${props.perSecond} per second). ` +
        `Retry after ${props.retryAfterSeconds} s; retrying sooner lengthens the wait.`,
      { 'Retry-After': String(props.retryAfterSeconds) },
    );
  }
}

/** 429: the events an organisation's requests may emit this minute in this mode are spent; nothing was changed. */
export class EventBudgetSpentError extends ApiError {
  constructor(props: { perMinute: number; retryAfterSeconds: number }) {
    super(
      429,
      'RATE_LIMITED',
      `This organisation's requests have emitted ${props.perMinute} events this minute in this mode, the most they may (every key and member together); ` +
        `nothing was changed. Retry after ${props.retryAfterSeconds} s, or change many records in one batch: a batch is one event.`,
      { 'Retry-After': String(props.retryAfterSeconds) },
    );
  }
}

export class InternalError extends ApiError {
  constructor(requestId: string) {
    super(500, 'INTERNAL', `Internal server error. Quote request id ${requestId} when reporting it.`);
  }
}
