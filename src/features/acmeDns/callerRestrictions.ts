import type { Principal } from '../../auth/principal.js';
import { DomainNotAllowedError, ForbiddenError, RecordNotAllowedError } from '../../auth/errors.js';
import { ipsWithin } from '../../auth/keyRestrictions.js';

/**
 * Which of the organisation's ACME-DNS registrations a caller may make, see and delete
 * (docs/api-guide.md, Certificates): the `allowed_ips` of a key limited to some addresses (only
 * registrations whose `allowfrom` lies within them), or undefined for all of them. A registration
 * answers for whichever domain points a CNAME at it, so it is tied to no domain: a key limited to
 * some domains or records may not act on any (403 DOMAIN_NOT_ALLOWED, RECORD_NOT_ALLOWED).
 */
export function registrationsCallerMaySee(principal: Principal): readonly string[] | undefined {
  const guards = principal.guards;
  if (!guards) return undefined;
  if (guards.allowedRecords.length > 0) throw RecordNotAllowedError.forRoute();
  if (guards.allowedDomains.length > 0) throw new DomainNotAllowedError('ACME-DNS registrations, which are tied to no one domain');
  return guards.allowedIps.length > 0 ? guards.allowedIps : undefined;
}

/**
 * The `allowfrom` of a registration the caller makes: what it asked for, which for a key limited to
 * some addresses must lie within them (403 otherwise); left out, that key's addresses.
 */
export function allowfromOfCaller(principal: Principal, requested: string[]): string[] {
  const allowedIps = registrationsCallerMaySee(principal);
  if (!allowedIps) return requested;
  if (requested.length === 0) return [...allowedIps];
  if (!ipsWithin(requested, allowedIps)) {
    throw new ForbiddenError(`This key is restricted to allowed_ips ${allowedIps.join(', ')}: the ACME-DNS registrations it makes need an allowfrom within them`);
  }
  return requested;
}
