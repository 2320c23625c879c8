import type { Queryable } from '../../db/pool.js';
import type { Mode } from '../../db/modeScope.js';
import { findDomainOfOrg, type Domain } from '../../db/repositories/domains.js';
import { parseDomainName } from '../../domains/domainName.js';
import { ConflictError, NotFoundError } from '../../errors.js';

/**
 * The organisation's domain named as a client wrote it (any case, IDN or punycode). A bad name, a
 * domain of another organisation or mode, and no domain at all are the same 404.
 */
export async function domainNamed(db: Queryable, mode: Mode, orgId: string, name: string): Promise<Domain> {
  const parsed = parseDomainName(name);
  const domain = parsed.ok ? await findDomainOfOrg(db, mode, orgId, parsed.value.name) : undefined;
  if (!domain) throw new NotFoundError('Domain not found');
  return domain;
}

/** As domainNamed, and 409 DOMAIN_STATE_CONFLICT unless the domain is active; `action` names what was refused. */
export async function activeDomainNamed(db: Queryable, mode: Mode, orgId: string, name: string, action: string): Promise<Domain> {
  const domain = await domainNamed(db, mode, orgId, name);
  if (domain.status !== 'active') {
    throw new ConflictError('DOMAIN_STATE_CONFLICT', `${domain.name} is ${domain.status}; ${action} only while a domain is active`);
  }
  return domain;
}
