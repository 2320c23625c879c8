import { ApiError, UpstreamError } from '../errors.js';
import { isNetworkFailure } from '../upstream/network.js';

/**
 * 503 UPSTREAM_UNAVAILABLE: the registrar did not answer usefully (5xx, 429, timeout, connection
 * error). Transient unless constructed otherwise (e.g. the live registrar is not configured at all).
 */
export class RegistrarUnavailableError extends UpstreamError {
  constructor(
    detail: string,
    options: { retryAfterSeconds?: number; upstreamStatus?: number; transient?: boolean; cause?: unknown } = {},
  ) {
    const retryAfter = options.retryAfterSeconds;
    super('UPSTREAM_UNAVAILABLE', detail, {
      ...options,
      transient: options.transient ?? true,
      headers: retryAfter !== undefined ? { 'Retry-After': String(retryAfter) } : {},
    });
  }
}

/** Registrar adapters that can refuse our account: a metric label, so a closed list. */
export type RegistrarAdapter = 'dnsimple';

/**
 * The registrar refused us, not the request: bad credentials (401), an unpaid invoice (402), a token
 * without the scope (403). The operator must act; the customer is told only that the upstream is
 * unavailable, never the upstream text (it names our account and invoices), which stays in
 * `operatorDetail` for the error log. Permanent for a paid submission (nothing happened upstream).
 */
export class RegistrarAccountError extends RegistrarUnavailableError {
  constructor(
    readonly operatorDetail: string,
    upstreamStatus: number,
    readonly adapter: RegistrarAdapter,
  ) {
    super('The registrar is unavailable; nothing was charged. Try again later.', { upstreamStatus, transient: false });
  }
}

/**
 * A paid request (registration, renewal, transfer) whose outcome we do not know: it timed out, the
 * connection dropped after it was sent, or a 5xx came back. It may have taken effect, so it must not
 * be sent again until reading the upstream state shows that nothing happened.
 */
export class RegistrarOutcomeUnknownError extends RegistrarUnavailableError {}

/** REGISTRAR_REJECTED: the registrar refused the request; retrying the same request will not help. */
export class RegistrarRejectedError extends ApiError {
  readonly upstreamStatus: number | undefined;
  /** The registrar's field errors, as it sent them (DNSimple: `{field: [messages]}`). */
  readonly upstreamErrors: unknown;

  constructor(detail: string, options: { status?: 409 | 422; upstreamStatus?: number; upstreamErrors?: unknown } = {}) {
    super('REGISTRAR_REJECTED', detail, { status: options.status ?? 422 });
    this.upstreamStatus = options.upstreamStatus;
    this.upstreamErrors = options.upstreamErrors;
  }
}

/** 409 DOMAIN_LOCKED: locked at the registry; transfers and auth codes are refused until unlocked. */
export class DomainLockedError extends ApiError {
  constructor(name: string) {
    super('DOMAIN_LOCKED', `${name} is locked at the registry; transfers and auth codes are refused while it is locked`);
  }
}

/** 409 DOMAIN_NOT_AVAILABLE: the name cannot be registered. */
export class DomainNotAvailableError extends ApiError {
  constructor(name: string) {
    super('DOMAIN_NOT_AVAILABLE', `${name} is not available for registration`);
  }
}

/**
 * Whether retrying may succeed: a RegistrarUnavailableError marked transient, or a raw timeout /
 * connection failure. Every other error (rejections, locks, bugs) is permanent.
 */
export function isTransient(err: unknown): boolean {
  if (err instanceof RegistrarUnavailableError) return err.transient;
  if (err instanceof ApiError) return false;
  return isNetworkFailure(err);
}

/**
 * A registrar outage answered within a request: `Retry-After` always, `fallbackSeconds` when the
 * registrar named no delay, so a client waits before sending the change again. Anything else as it is.
 */
export function withRetryAfter(err: unknown, fallbackSeconds: number): unknown {
  if (!(err instanceof RegistrarUnavailableError) || !err.transient || err.retryAfterSeconds !== undefined) return err;
  return new RegistrarUnavailableError(err.message, { retryAfterSeconds: fallbackSeconds, upstreamStatus: err.upstreamStatus, cause: err });
}

/** The delay the registrar asked for, if any (for Temporal's `nextRetryDelay`). */
export function retryAfterSeconds(err: unknown): number | undefined {
  return err instanceof RegistrarUnavailableError ? err.retryAfterSeconds : undefined;
}
