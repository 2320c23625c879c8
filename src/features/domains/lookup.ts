import type { Queryable } from '../../db/pool.js';
import type { Mode } from '../../db/modeScope.js';
import { findLatestDomainOfOrg, type Domain, type DomainStatus } from './domains.repository.js';
import type { DomainName } from '../../domainName.js';
import { ConflictError, NotFoundError } from '../../errors.js';

/**
 * The organisation's domain of that name (parsed from the path by `DomainNameSchema`, so any case,
 * IDN or punycode finds it): the one it holds, else the one it held last (`deleted`). A domain of
 * another organisation or mode and no domain at all are the same 404.
 */
export async function domainNamed(db: Queryable, mode: Mode, orgId: string, name: DomainName): Promise<Domain> {
  const domain = await findLatestDomainOfOrg(db, mode, orgId, name.name);
  if (!domain) throw new NotFoundError('Domain not found');
  return domain;
}

/** As domainNamed, and 409 DOMAIN_STATE_CONFLICT unless the domain is active; `action` names what was refused. */
export async function activeDomainNamed(db: Queryable, mode: Mode, orgId: string, name: DomainName, action: string): Promise<Domain> {
  return domainIn(await domainNamed(db, mode, orgId, name), ['active'], action);
}

/** Renewal works while a domain is active and during the grace period after it expired (docs/api-guide.md, Operations and workflows). */
export const RENEWABLE: readonly DomainStatus[] = ['active', 'expired'];

/** 409 DOMAIN_STATE_CONFLICT unless the domain is in one of `statuses`; `action` names what was refused. */
export function domainIn(domain: Domain, statuses: readonly DomainStatus[], action: string): Domain {
  if (!statuses.includes(domain.status)) {
    throw new ConflictError('DOMAIN_STATE_CONFLICT', `${domain.name} is ${domain.status}; ${action} only while a domain is ${statuses.join(' or ')}`);
  }
  return domain;
}
