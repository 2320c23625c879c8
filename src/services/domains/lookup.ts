import type { Queryable } from '../../db/pool.js';
import type { Mode } from '../../db/modeScope.js';
import { findDomainOfOrg, type Domain } from '../../db/repositories/domains.js';
import type { DomainName } from '../../domains/domainName.js';
import { ConflictError, NotFoundError } from '../../errors.js';

/**
 * The organisation's domain of that name (parsed from the path by `DomainNameSchema`, so any case,
 * IDN or punycode finds it). A domain of another organisation or mode and no domain at all are the same 404.
 */
export async function domainNamed(db: Queryable, mode: Mode, orgId: string, name: DomainName): Promise<Domain> {
  const domain = await findDomainOfOrg(db, mode, orgId, name.name);
  if (!domain) throw new NotFoundError('Domain not found');
  return domain;
}

/** As domainNamed, and 409 DOMAIN_STATE_CONFLICT unless the domain is active; `action` names what was refused. */
export async function activeDomainNamed(db: Queryable, mode: Mode, orgId: string, name: DomainName, action: string): Promise<Domain> {
  const domain = await domainNamed(db, mode, orgId, name);
  if (domain.status !== 'active') {
    throw new ConflictError('DOMAIN_STATE_CONFLICT', `${domain.name} is ${domain.status}; ${action} only while a domain is active`);
  }
  return domain;
}
