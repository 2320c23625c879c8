import { ApiError } from '../errors.js';

const CHALLENGE = { 'WWW-Authenticate': 'Bearer' };

/** No Authorization header: exactly `{"detail": "Not authenticated"}` (interface, Authentication 9). */
export class NotAuthenticatedError extends ApiError {
  constructor() {
    super('NOT_AUTHENTICATED', 'Not authenticated', { headers: CHALLENGE });
  }

  override toBody(): { detail: string } {
    return { detail: 'Not authenticated' };
  }
}

export class InvalidTokenError extends ApiError {
  constructor(detail = 'The bearer token is not valid') {
    super('INVALID_TOKEN', detail, { headers: { 'WWW-Authenticate': 'Bearer error="invalid_token"' } });
  }
}

export class TokenExpiredError extends ApiError {
  constructor() {
    super('TOKEN_EXPIRED', 'The session token has expired; sign in again', {
      headers: { 'WWW-Authenticate': 'Bearer error="invalid_token", error_description="expired"' },
    });
  }
}

export class ApiKeyRevokedError extends ApiError {
  constructor(reason: string | null) {
    super('API_KEY_REVOKED', `This API key was revoked${reason ? ` (${reason})` : ''}; create a new one`, {
      headers: { 'WWW-Authenticate': 'Bearer error="invalid_token", error_description="revoked"' },
    });
  }
}

export class InsufficientScopeError extends ApiError {
  constructor(scope: string) {
    super('INSUFFICIENT_SCOPE', `This API key lacks the scope ${scope}`);
  }
}

export class NotOrgMemberError extends ApiError {
  constructor() {
    super('NOT_ORG_MEMBER', 'You are not a member of this organisation');
  }
}

export class ForbiddenError extends ApiError {
  constructor(detail: string) {
    super('FORBIDDEN', detail);
  }
}

/**
 * Organisations and memberships are shared by both modes, so a test key (which is meant to be
 * handed to CI and test tooling) must not change who holds live power.
 */
export class LiveCredentialRequiredError extends ApiError {
  constructor() {
    super('LIVE_CREDENTIAL_REQUIRED', 'Organisation and membership changes need a live API key or a session; test keys can only read them');
  }
}

/**
 * The identity provider did not assert the caller's e-mail address verified (`email_verified` false,
 * or not sent at all): that address cannot claim an invitation.
 */
export class EmailNotVerifiedError extends ApiError {
  constructor(claim: boolean | null) {
    super(
      'EMAIL_NOT_VERIFIED',
      claim === false
        ? 'Your identity provider has not verified your e-mail address; verify it and sign in again'
        : 'Your identity provider did not say your e-mail address is verified (no email_verified claim); ask it to send email_verified, verify the address and sign in again',
    );
  }
}

/** 403: the API key is restricted to other client addresses (`allowed_ips`). */
export class IpNotAllowedError extends ApiError {
  constructor(address: string) {
    super('IP_NOT_ALLOWED', `This API key may not be used from ${address}; see its allowed_ips`);
  }
}

/** 403: the API key is restricted to other domains (`allowed_domains`). */
export class DomainNotAllowedError extends ApiError {
  constructor(name: string) {
    super('DOMAIN_NOT_ALLOWED', `This API key may not act on ${name}; see its allowed_domains`);
  }
}

/**
 * 403: the API key is restricted to some DNS records (`allowed_records`): it may change only those,
 * read only the records of the domains they name, and call nothing else.
 */
export class RecordNotAllowedError extends ApiError {
  constructor(detail: string) {
    super('RECORD_NOT_ALLOWED', detail);
  }

  /** A record (or a domain's records) outside the patterns. */
  static forRecord(what: string): RecordNotAllowedError {
    return new RecordNotAllowedError(`This API key may not act on ${what}; see its allowed_records`);
  }

  /** A route that does not act on DNS records. */
  static forRoute(): RecordNotAllowedError {
    return new RecordNotAllowedError(
      'This API key is restricted to allowed_records: it may only read and change those DNS records (the records, zone file and httpreq routes)',
    );
  }
}

/** 401 from the dashboard's server side (src/dashboard/): no session cookie, or its session has ended. */
export class NotSignedInError extends ApiError {
  constructor(detail = 'Not signed in; sign in at /dashboard/login') {
    super('NOT_SIGNED_IN', detail);
  }
}

/**
 * 403 from the dashboard's server side: a state-changing call without the session's CSRF token in
 * `X-CSRF-Token`, or with an `Origin` other than the dashboard's own.
 */
export class CsrfFailedError extends ApiError {
  constructor(detail: string) {
    super('CSRF_FAILED', detail);
  }
}
