import type { Queryable } from '../../db/pool.js';
import type { Mode } from '../../db/modeScope.js';
import { ConflictError } from '../../errors.js';
import { findDomainOfOrg, type Domain, type DomainStatus } from '../domains/domains.repository.js';
import { domainIn } from '../domains/lookup.js';
import { findOpenOperationOfDomain } from './handOver.repository.js';

/** A domain that is ours, active or in its grace period, can move; its lifecycle goes with it. */
export const MOVABLE: readonly DomainStatus[] = ['active', 'expired'];

/**
 * What must hold, under the domain's row lock, both when a move is proposed and when it is accepted:
 * the domain is movable, no register, transfer or renewal of it is unfinished (409 naming it: it
 * would charge or act for the organisation it leaves), and (test mode, where names are held per
 * organisation) the target holds no domain of that name.
 */
export async function checkMovable(tx: Queryable, mode: Mode, domain: Domain, toOrgId: string): Promise<void> {
  domainIn(domain, MOVABLE, 'it can be moved');
  const open = await findOpenOperationOfDomain(tx, mode, domain.id);
  if (open) {
    throw new ConflictError(
      'DOMAIN_STATE_CONFLICT',
      `${domain.name} has a ${open.type} operation ${open.id} that is ${open.status}; it can be moved once that has finished`,
    );
  }
  if (await findDomainOfOrg(tx, mode, toOrgId, domain.name)) {
    throw new ConflictError('DOMAIN_STATE_CONFLICT', `The target organisation already holds a domain named ${domain.name} in this mode`);
  }
}
