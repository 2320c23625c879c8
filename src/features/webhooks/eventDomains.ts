import { domainMatches } from '../../auth/keyRestrictions.js';
import { patternsNameDomain } from '../../auth/recordPatterns.js';
import type { Principal } from '../../auth/principal.js';
import type { EventAudience, EventType } from './events.repository.js';

type DomainField = 'domain' | 'name' | null;

/**
 * Where each event type's object names the domain it is about: operations, DNSSEC, moves and DNS
 * changes carry `domain`, a domain itself its `name`; the others are about no domain. Declared per
 * type, so a new type cannot be emitted without saying.
 */
const DOMAIN_FIELD: Readonly<Record<EventType, DomainField>> = {
  'operation.succeeded': 'domain',
  'operation.failed': 'domain',
  'operation.cancelled': 'domain',
  'domain.expiring': 'name',
  'domain.renewed': 'name',
  'domain.auto_renew_failed': 'name',
  'domain.expired': 'name',
  'domain.deleted': 'name',
  'domain.moved_out': 'domain',
  'domain.moved_in': 'domain',
  'api_key.revoked': null,
  'webhook_endpoint.disabled': null,
  'dnssec.enabled': 'domain',
  'dnssec.disabled': 'domain',
  'dns_record.created': 'domain',
  'dns_record.updated': 'domain',
  'dns_record.deleted': 'domain',
  'dns_zone.changed': 'domain',
  ping: null,
};

/**
 * The domain (its name) an event of this type and object is about; null when it is about none. An
 * object that should name one and does not is about an unknown domain (''), which no key restricted
 * to some domains is shown, rather than a failed emit of a change that has happened.
 */
export function domainOfEvent(type: EventType, object: unknown): string | null {
  const field = DOMAIN_FIELD[type];
  if (field === null) return null;
  const value = (object as Record<string, unknown> | null)?.[field];
  return typeof value === 'string' ? value : '';
}

/**
 * Whether an event about `domain` (null: about none) is one the key may read: with `allowed_domains`
 * only the events of those domains, with `allowed_records` only those of the domains they name; an
 * event about no domain is everyone's.
 */
export function eventVisibleTo(audience: EventAudience, domain: string | null): boolean {
  if (domain === null || !audience) return true;
  if (audience.allowedDomains.length > 0 && !domainMatches(audience.allowedDomains, domain)) return false;
  if (audience.allowedRecords.length > 0 && !patternsNameDomain(audience.allowedRecords, domain)) return false;
  return true;
}

/** The caller's audience: its key's restrictions, none for a session. */
export function audienceOf(principal: Pick<Principal, 'guards'>): EventAudience {
  const guards = principal.guards;
  return guards ? { allowedDomains: guards.allowedDomains, allowedRecords: guards.allowedRecords } : undefined;
}
