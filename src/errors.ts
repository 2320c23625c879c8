import { ERROR_CODES, type CodeWithStatus, type ErrorCode, type ErrorStatus } from './http/errorCodes.js';

/**
 * Every error the API renders is an ApiError: it carries a `code` of the one list
 * (src/http/errorCodes.ts), whose entry gives its HTTP status, so the one error middleware never
 * has to guess and a feature's error never names a status.
 */
export interface FieldError {
  loc: string[];
  msg: string;
  type: string;
}

export type ErrorDetail = string | FieldError[];

/**
 * What an ApiError is made of: a code, its words, and headers; a status only where the code's entry
 * names it in `also` (the compiler checks which), else the code's own.
 */
export type ApiErrorArgs =
  | { [C in ErrorCode]: [code: C, detail: ErrorDetail, options: { status: ErrorStatus<C>; headers?: Record<string, string> }] }[ErrorCode]
  | [code: ErrorCode, detail: ErrorDetail, options?: { status?: never; headers?: Record<string, string> }];

export class ApiError extends Error {
  readonly code: ErrorCode;
  readonly detail: ErrorDetail;
  readonly status: number;
  readonly headers: Record<string, string>;

  constructor(...[code, detail, options]: ApiErrorArgs) {
    super(typeof detail === 'string' ? detail : `${code}: ${detail.map((e) => e.msg).join('; ')}`);
    this.name = new.target.name;
    this.code = code;
    this.detail = detail;
    this.status = options?.status ?? ERROR_CODES[code].status;
    this.headers = options?.headers ?? {};
  }

  toBody(): { detail: ErrorDetail; code?: string } {
    return { detail: this.detail, code: this.code };
  }
}

/**
 * An answer whose status is decided where it is made, not by its code's entry: a 4xx an HTTP
 * library threw, or the api's answer passed on by the external-dns webhook under the status
 * external-dns must see.
 */
export class ApiErrorWithStatus extends ApiError {
  override readonly status: number;

  constructor(status: number, code: ErrorCode, detail: ErrorDetail, headers: Record<string, string> = {}) {
    super(code, detail, { headers });
    this.status = status;
  }
}

type UpstreamOptions = { transient: boolean; retryAfterSeconds?: number; upstreamStatus?: number; cause?: unknown; headers?: Record<string, string> };

/** An UpstreamError's code, words and options; a status only as for an ApiError. */
export type UpstreamErrorArgs =
  | { [C in ErrorCode]: [code: C, detail: string, options: UpstreamOptions & { status: ErrorStatus<C> }] }[ErrorCode]
  | [code: ErrorCode, detail: string, options: UpstreamOptions & { status?: never }];

/**
 * An upstream (registrar, DNS provider) failed us. `transient`: retrying may succeed (it could not be
 * reached, timed out, answered 5xx or 429); `retryAfterSeconds`: how long it asked us to wait. One
 * conversion turns these into Temporal failures (src/temporal/activityFailures.ts).
 */
export class UpstreamError extends ApiError {
  readonly transient: boolean;
  readonly retryAfterSeconds: number | undefined;
  readonly upstreamStatus: number | undefined;

  constructor(...args: UpstreamErrorArgs) {
    // The same pairs of code and status as ApiErrorArgs, with the upstream's own options beside them.
    super(...(args as ApiErrorArgs));
    const options = args[2];
    this.transient = options.transient;
    this.retryAfterSeconds = options.retryAfterSeconds;
    this.upstreamStatus = options.upstreamStatus;
    if (options.cause !== undefined) this.cause = options.cause;
  }
}

/** 400: the body could not be read as JSON (malformed, or not sent as application/json). */
export class InvalidJsonError extends ApiError {
  constructor(msg: string, type = 'json_invalid') {
    super('INVALID_JSON', [{ loc: ['body'], msg, type }]);
  }
}

/** 415: the body is compressed (`Content-Encoding` other than identity); send it uncompressed. */
export class UnsupportedEncodingError extends ApiError {
  constructor(encoding: string) {
    super(
      'INVALID_JSON',
      [
        {
          loc: ['header', 'content-encoding'],
          msg: `Content-Encoding ${encoding.slice(0, 40)} is not supported; send the body uncompressed`,
          type: 'content_encoding_unsupported',
        },
      ],
      { status: 415 },
    );
  }
}

/** 422: the input parsed but does not match the route's schema. */
export class ValidationError extends ApiError {
  constructor(errors: FieldError[]) {
    super('VALIDATION_ERROR', errors);
  }
}

/** 401 on a route authenticated by a signature (a webhook), not a bearer token. */
export class InvalidSignatureError extends ApiError {
  constructor(detail: string) {
    super('INVALID_SIGNATURE', detail);
  }
}

/** 403 from the codec server: a browser page on an origin other than the Temporal Web UI's. */
export class OriginNotAllowedError extends ApiError {
  constructor(origin: string) {
    super('ORIGIN_NOT_ALLOWED', `Origin ${origin} may not use this codec server; see CODEC_SERVER_CORS_ORIGINS`);
  }
}

/** 422 from the codec server: a payload sealed with a key it does not have, or altered. */
export class PayloadNotDecodableError extends ApiError {
  constructor(detail: string) {
    super('PAYLOAD_NOT_DECODABLE', detail);
  }
}

export class NotFoundError extends ApiError {
  constructor(detail = 'Not found') {
    super('NOT_FOUND', detail);
  }
}

export class MethodNotAllowedError extends ApiError {
  constructor(allowed: string[]) {
    super('METHOD_NOT_ALLOWED', `Method not allowed. Allowed: ${allowed.join(', ')}`, { headers: { Allow: allowed.join(', ') } });
  }
}

/** 413, and the connection closed once answered: the rest of the body is never read. */
export class PayloadTooLargeError extends ApiError {
  constructor(limitBytes: number) {
    super('PAYLOAD_TOO_LARGE', `Request body exceeds the limit of ${limitBytes} bytes`, { headers: { Connection: 'close' } });
  }
}

/** 409: a code whose entry in the list is a conflict with the state of what the request acts on. */
export class ConflictError extends ApiError {
  constructor(code: CodeWithStatus<409>, detail: string) {
    super(code, detail);
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
  constructor(code: CodeWithStatus<503>, detail: string, retryAfterSeconds?: number) {
    super(code, detail, { headers: retryAfterSeconds ? { 'Retry-After': String(retryAfterSeconds) } : {} });
  }
}

/** 429: the caller's group limit is spent; `Retry-After` says when to come back. */
export class RateLimitedError extends ApiError {
  constructor(props: { group: string; perMinute: number; perSecond: number; retryAfterSeconds: number }) {
    super(
      'RATE_LIMITED',
      `Rate limit exceeded for ${props.group} requests (${props.perMinute} per minute, ${props.perSecond} per second). ` +
        `Retry after ${props.retryAfterSeconds} s; retrying sooner lengthens the wait.`,
      { headers: { 'Retry-After': String(props.retryAfterSeconds) } },
    );
  }
}

export class InternalError extends ApiError {
  constructor(requestId: string) {
    super('INTERNAL', `Internal server error. Quote request id ${requestId} when reporting it.`);
  }
}
