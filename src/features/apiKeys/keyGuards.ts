import type { ApiKeyGuards, ApiKeyRecord } from '../../auth/apiKeys.js';
import type { Principal } from '../../auth/principal.js';
import { ForbiddenError } from '../../auth/errors.js';
import { domainsWithin, ipsWithin } from '../../auth/keyRestrictions.js';

/**
 * A key that is itself guarded may only give keys guards at least as narrow as its own, so no key
 * can mint (or turn itself into) a wider one: a spending limit no higher than its own, addresses
 * within its `allowed_ips`, domains within its `allowed_domains`.
 */
export function requireNarrowerGuards(principal: Principal, guards: Partial<ApiKeyGuards>): void {
  const own = principal.guards;
  if (principal.type !== 'api_key' || !own) return;
  // The router already refuses such a key every key route (it acts on records only); kept here so
  // that no change there could let it mint a wider key.
  if (own.allowedRecords.length > 0) throw new ForbiddenError('A key restricted to allowed_records cannot create or change keys');
  if (own.monthlySpendLimit !== null && (guards.monthlySpendLimit == null || guards.monthlySpendLimit > own.monthlySpendLimit)) {
    throw new ForbiddenError(`This key's monthly_spend_limit is ${own.monthlySpendLimit}: keys it creates or changes need one no higher`);
  }
  if (!ipsWithin(guards.allowedIps ?? [], own.allowedIps)) {
    throw new ForbiddenError(`This key is restricted to allowed_ips ${own.allowedIps.join(', ')}: keys it creates or changes need allowed_ips within them`);
  }
  if (!domainsWithin(guards.allowedDomains ?? [], own.allowedDomains)) {
    throw new ForbiddenError(
      `This key is restricted to allowed_domains ${own.allowedDomains.join(', ')}: keys it creates or changes need allowed_domains within them`,
    );
  }
}

/** The guards of a key as an audit event records them. */
export function guardsAudit(key: ApiKeyRecord): Record<string, unknown> {
  return { monthly_spend_limit: key.monthlySpendLimit, allowed_ips: key.allowedIps, allowed_domains: key.allowedDomains, allowed_records: key.allowedRecords };
}
