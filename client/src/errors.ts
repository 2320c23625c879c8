import type { components } from './schema.js';
import { parseRetryAfterMs } from './retryAfter.js';

/**
 * The codes the API documents for its error bodies. The OpenAPI document types `code` as a plain
 * string, so this list is kept by hand beside it; any other string still type-checks, so a code
 * the API adds later reaches callers unchanged.
 */
export const KNOWN_ERROR_CODES = [
  'NOT_AUTHENTICATED',
  'INVALID_TOKEN',
  'TOKEN_EXPIRED',
  'API_KEY_REVOKED',
  'INSUFFICIENT_SCOPE',
  'NOT_ORG_MEMBER',
  'FORBIDDEN',
  'NOT_FOUND',
  'METHOD_NOT_ALLOWED',
  'INVALID_JSON',
  'VALIDATION_ERROR',
  'PAYLOAD_TOO_LARGE',
  'REQUEST_TIMEOUT',
  'INVALID_REQUEST',
  'INSUFFICIENT_FUNDS',
  'SPEND_LIMIT_REACHED',
  'PRICE_EXCEEDS_MAX',
  'PAYMENT_REQUIRED_FOR_LIVE_TOP_UP',
  'DOMAIN_LOCKED',
  'DOMAIN_NOT_AVAILABLE',
  'DOMAIN_NAME_NOT_REGISTRABLE',
  'DOMAIN_STATE_CONFLICT',
  'DOMAIN_NOT_ALLOWED',
  'IP_NOT_ALLOWED',
  'LIVE_CREDENTIAL_REQUIRED',
  'KEY_LIMIT_REACHED',
  'LAST_OWNER',
  'CSRF_FAILED',
  'VERSION_MISMATCH',
  'RECORD_CONFLICT',
  'ZONE_FILE_INVALID',
  'ZONE_RECORD_LIMIT',
  'CONTACT_IN_USE',
  'DUPLICATE',
  'OPERATION_NOT_CANCELLABLE',
  'WEBHOOK_ENDPOINT_DISABLED',
  'WEBHOOK_ENDPOINT_LIMIT',
  'EVENT_STREAM_LIMIT',
  'WEBHOOK_BACKLOG_LIMIT',
  'IDEMPOTENCY_KEY_REUSED',
  'IDEMPOTENCY_KEY_IN_USE',
  'RATE_LIMITED',
  'REGISTRAR_REJECTED',
  'UPSTREAM_UNAVAILABLE',
  'DNS_PROVIDER_UNAVAILABLE',
  'WORKFLOW_ENGINE_UNAVAILABLE',
  'PAYMENT_PROVIDER_UNAVAILABLE',
  'INTERNAL',
  /** Not from the API: an answer without a JSON error body (a proxy's HTML page, say). */
  'UNEXPECTED_RESPONSE',
] as const;

export type KnownErrorCode = (typeof KNOWN_ERROR_CODES)[number];
// `string & {}` keeps editor completion for the known codes while accepting new ones.
export type ErrorCode = KnownErrorCode | (string & {});

export type FieldError = components['schemas']['FieldError'];

/** Every non-2xx answer, after the SDK's own retries: `status`, `code` and `detail` as the API sent them. */
export class ApiError extends Error {
  readonly status: number;
  readonly code: ErrorCode;
  /** Words for a person, or one entry per invalid field (400 and 422). */
  readonly detail: string | FieldError[];
  /** The `X-Request-Id` to quote when reporting a problem. */
  readonly requestId: string | undefined;
  /** Seconds the API asked to wait (429, 503), when it said. */
  readonly retryAfterSeconds: number | undefined;

  constructor(props: { status: number; code: ErrorCode; detail: string | FieldError[]; requestId?: string | undefined; retryAfterSeconds?: number | undefined }) {
    const words = typeof props.detail === 'string' ? props.detail : props.detail.map((e) => `${e.loc.join('.')}: ${e.msg}`).join('; ');
    super(`${props.status} ${props.code}: ${words}`);
    this.name = 'ApiError';
    this.status = props.status;
    this.code = props.code;
    this.detail = props.detail;
    this.requestId = props.requestId;
    this.retryAfterSeconds = props.retryAfterSeconds;
  }

  /** The field errors of a 400 or 422, each with its `loc` (e.g. `["body", "name"]`); empty otherwise. */
  get fieldErrors(): FieldError[] {
    return typeof this.detail === 'string' ? [] : this.detail;
  }

  is(code: KnownErrorCode): boolean {
    return this.code === code;
  }

  /** Builds the error from a response and its parsed body (which may be anything, or nothing). */
  static fromResponse(response: Response, body: unknown): ApiError {
    const shaped = typeof body === 'object' && body !== null ? (body as { detail?: unknown; code?: unknown }) : {};
    const detail = typeof shaped.detail === 'string' || Array.isArray(shaped.detail) ? (shaped.detail as string | FieldError[]) : undefined;
    const code =
      typeof shaped.code === 'string'
        ? shaped.code
        : // The one body without a code: no Authorization header at all.
          response.status === 401 && detail !== undefined
          ? 'NOT_AUTHENTICATED'
          : 'UNEXPECTED_RESPONSE';
    const retryAfterMs = parseRetryAfterMs(response.headers.get('retry-after'));
    return new ApiError({
      status: response.status,
      code,
      detail: detail ?? (response.statusText || `HTTP ${response.status}`),
      requestId: response.headers.get('x-request-id') ?? undefined,
      retryAfterSeconds: retryAfterMs === undefined ? undefined : Math.ceil(retryAfterMs / 1000),
    });
  }
}

/** Thrown by waitForOperation when its timeout passes before the operation ends. */
export class OperationTimeoutError extends Error {
  constructor(
    readonly operationId: string,
    readonly lastStatus: string | undefined,
    timeoutMs: number,
  ) {
    super(`Operation ${operationId} did not finish within ${timeoutMs} ms (last status: ${lastStatus ?? 'unknown'})`);
    this.name = 'OperationTimeoutError';
  }
}
