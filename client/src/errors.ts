import type { components } from './schema.js';
import { parseRetryAfterMs } from './retryAfter.js';
import { errorCodes } from './errorCodes.js';

/**
 * The codes the API's error bodies carry: its one list, generated into ./errorCodes.ts. The OpenAPI
 * document types `code` as a plain string, so any other string still type-checks, and a code the
 * API adds later reaches callers unchanged. `UNEXPECTED_RESPONSE` is the SDK's own for an answer
 * without a JSON error body (a proxy's HTML page, say).
 */
export const KNOWN_ERROR_CODES = errorCodes;

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
