import type { Queryable } from '../../db/pool.js';
import type { Mode } from '../../db/modeScope.js';
import type { OrgRole } from '../../auth/memberships.js';
import type { Plan } from '../../auth/organizations.js';
import { PLAN_MULTIPLIERS } from '../../rateLimit/groups.js';
import { ConflictError } from '../../errors.js';
import { findDomainOfOrg, type Domain, type DomainStatus, domainIn } from '../domains/index.js';
import { findOpenOperationOfDomain } from './handOver.repository.js';

/** A domain that is ours, active or in its grace period, can move; its lifecycle goes with it. */
export const MOVABLE: readonly DomainStatus[] = ['active', 'expired'];

/** Who proposes a move, and whose move stays acceptable only while they keep one of these roles in the source. */
export const PROPOSER_ROLES: readonly OrgRole[] = ['owner', 'admin'];

/**
 * Pending moves a source may have per mode on the free plan, scaled by plan as the rate limits are.
 * A move may be proposed to any organisation id, so this bounds what one organisation can put in
 * others' incoming lists (and their owners' mailboxes) at once; one per domain holds besides.
 */
export const PENDING_MOVES_PER_ORG = 50;

export function pendingMovesAllowed(plan: Plan): number {
  return PENDING_MOVES_PER_ORG * PLAN_MULTIPLIERS[plan];
}

/**
 * What must hold, under the domain's row lock, both when a move is proposed and when it is accepted:
 * the domain is movable and no register, transfer or renewal of it is unfinished (409 naming it: it
 * would charge or act for the organisation it leaves).
 */
export async function checkMovable(tx: Queryable, mode: Mode, domain: Domain): Promise<void> {
  domainIn(domain, MOVABLE, 'it can be moved');
  const open = await findOpenOperationOfDomain(tx, mode, domain.id);
  if (open) {
    throw new ConflictError(
      'DOMAIN_STATE_CONFLICT',
      `${domain.name} has a ${open.type} operation ${open.id} that is ${open.status}; it can be moved once that has finished`,
    );
  }
}

/**
 * On acceptance only (test mode, where names are held per organisation): the target holds no domain
 * of that name. Asked at proposal, it would tell the proposer what the target holds.
 */
export async function checkTargetFree(tx: Queryable, mode: Mode, domain: Domain, toOrgId: string): Promise<void> {
  if (await findDomainOfOrg(tx, mode, toOrgId, domain.name)) {
    throw new ConflictError('DOMAIN_STATE_CONFLICT', `The target organisation already holds a domain named ${domain.name} in this mode`);
  }
}
