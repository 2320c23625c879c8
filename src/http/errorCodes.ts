/**
 * Every `code` an error body of ours can carry, each with the HTTP status it is answered with: the
 * one list. An ApiError (src/errors.ts) takes a code of this list and looks its status up here, so
 * a feature's error names only its code and its words; a code not in the list does not compile.
 * `also` names the other statuses a code is answered with, where one code covers several (an
 * upstream that refused rather than failed, a body that is compressed rather than malformed).
 *
 * The OpenAPI document names its own codes through this type (src/openapi/statuses.ts), and
 * errorCodes.test.ts checks every code it names against the list; the SDK's list
 * (client/src/errorCodes.ts) is generated from it by `npm run client:generate`.
 */
export const ERROR_CODES = {
  // The request itself.
  BAD_REQUEST: { status: 400 },
  INVALID_REQUEST: { status: 400 },
  INVALID_JSON: { status: 400, also: [415] },
  VALIDATION_ERROR: { status: 422 },
  DOMAIN_NAME_NOT_REGISTRABLE: { status: 422 },
  NOT_FOUND: { status: 404 },
  METHOD_NOT_ALLOWED: { status: 405 },
  NOT_ACCEPTABLE: { status: 406 },
  REQUEST_TIMEOUT: { status: 408 },
  PAYLOAD_TOO_LARGE: { status: 413, also: [431] },
  UNSUPPORTED_MEDIA_TYPE: { status: 415 },
  NOT_IMPLEMENTED: { status: 501 },
  RATE_LIMITED: { status: 429 },
  INTERNAL: { status: 500 },

  // Who asks, and what they may do.
  NOT_AUTHENTICATED: { status: 401 },
  INVALID_TOKEN: { status: 401 },
  TOKEN_EXPIRED: { status: 401 },
  API_KEY_REVOKED: { status: 401 },
  INVALID_SIGNATURE: { status: 401, also: [400] },
  NOT_SIGNED_IN: { status: 401 },
  INSUFFICIENT_SCOPE: { status: 403 },
  NOT_ORG_MEMBER: { status: 403 },
  FORBIDDEN: { status: 403 },
  LIVE_CREDENTIAL_REQUIRED: { status: 403 },
  EMAIL_NOT_VERIFIED: { status: 403 },
  IP_NOT_ALLOWED: { status: 403 },
  DOMAIN_NOT_ALLOWED: { status: 403 },
  RECORD_NOT_ALLOWED: { status: 403 },
  CSRF_FAILED: { status: 403 },
  ORIGIN_NOT_ALLOWED: { status: 403 },
  PAYLOAD_NOT_DECODABLE: { status: 422 },

  // Idempotency and concurrent changes.
  IDEMPOTENCY_KEY_REUSED: { status: 409 },
  IDEMPOTENCY_KEY_IN_USE: { status: 409 },
  VERSION_MISMATCH: { status: 409 },
  CONCURRENT_UPDATE: { status: 409 },
  DUPLICATE: { status: 409 },

  // Money.
  INSUFFICIENT_FUNDS: { status: 402 },
  SPEND_LIMIT_REACHED: { status: 402 },
  PAYMENT_REQUIRED_FOR_LIVE_TOP_UP: { status: 403 },
  PRICE_EXCEEDS_MAX: { status: 409 },
  RESERVATION_MISMATCH: { status: 409 },
  RESERVATION_STATE_CONFLICT: { status: 409 },

  // The state of what a request acts on.
  LAST_OWNER: { status: 409 },
  KEY_LIMIT_REACHED: { status: 409 },
  KEY_RESTRICTIONS_CHANGED: { status: 409 },
  CONTACT_IN_USE: { status: 409 },
  DOMAIN_LOCKED: { status: 409 },
  DOMAIN_NOT_AVAILABLE: { status: 409 },
  DOMAIN_STATE_CONFLICT: { status: 409 },
  OPERATION_NOT_CANCELLABLE: { status: 409 },
  MOVE_NOT_PENDING: { status: 409 },
  DOMAIN_MOVE_LIMIT: { status: 409 },
  DNSSEC_STATE_CONFLICT: { status: 409 },
  RECORD_CONFLICT: { status: 409 },
  ZONE_RECORD_LIMIT: { status: 409 },
  ZONE_FILE_INVALID: { status: 422 },
  ACME_DNS_REGISTRATION_LIMIT: { status: 409 },
  EMAIL_FORWARD_INVALID: { status: 422 },
  EMAIL_FORWARD_LIMIT: { status: 409 },
  WEBHOOK_ENDPOINT_DISABLED: { status: 409 },
  WEBHOOK_ENDPOINT_LIMIT: { status: 409 },
  WEBHOOK_BACKLOG_LIMIT: { status: 409 },
  EVENT_STREAM_LIMIT: { status: 409 },

  // What we depend on.
  REGISTRAR_REJECTED: { status: 422, also: [409] },
  UPSTREAM_UNAVAILABLE: { status: 503 },
  UPSTREAM_RATE_LIMITED: { status: 503 },
  DNS_PROVIDER_UNAVAILABLE: { status: 503, also: [502] },
  DATABASE_UNAVAILABLE: { status: 503 },
  WORKFLOW_ENGINE_UNAVAILABLE: { status: 503 },
  PAYMENT_PROVIDER_UNAVAILABLE: { status: 503 },
  AUTH_PROVIDER_UNAVAILABLE: { status: 503 },
  SIGN_IN_NOT_CONFIGURED: { status: 503 },
  // The external-dns webhook passes it on from the SDK: the api answered without an error body.
  UNEXPECTED_RESPONSE: { status: 502 },
  ZONE_IMPORT_BUSY: { status: 503 },
  ZONE_EXPORT_BUSY: { status: 503 },
} as const satisfies Record<string, { status: number; also?: readonly number[] }>;

export type ErrorCode = keyof typeof ERROR_CODES;

type Entry<C extends ErrorCode> = (typeof ERROR_CODES)[C];

/** The statuses a code may be answered with: its own, and those its entry names in `also`. */
export type ErrorStatus<C extends ErrorCode> = Entry<C>['status'] | (Entry<C> extends { also: readonly (infer S)[] } ? S : never);

/** The codes answered with this status by default: what a ConflictError (409) or a 503 may carry. */
export type CodeWithStatus<S extends number> = { [C in ErrorCode]: Entry<C>['status'] extends S ? C : never }[ErrorCode];

export function isErrorCode(code: string): code is ErrorCode {
  return Object.hasOwn(ERROR_CODES, code);
}

/** Every status the code may be answered with, its own first. */
export function statusesOf(code: ErrorCode): readonly number[] {
  const entry: { status: number; also?: readonly number[] } = ERROR_CODES[code];
  return [entry.status, ...(entry.also ?? [])];
}
