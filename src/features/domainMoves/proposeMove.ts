import type { PlatformDeps } from '../../platformDeps.js';
import { withTransaction } from '../../db/pool.js';
import type { Principal } from '../../auth/principal.js';
import type { Plan } from '../../auth/organizations.js';
import { lockMembershipRole } from '../../auth/memberships.js';
import { ForbiddenError } from '../../auth/errors.js';
import type { Logger } from '../../logger.js';
import type { Mailer } from '../../mail/mailer.js';
import type { DomainName } from '../../domainName.js';
import { auditCallerAction } from '../../audit/auditEvents.js';
import { ConflictError, NotFoundError, ValidationError } from '../../errors.js';
import { newId } from '../../ids.js';
import { lockDomain, domainNamed } from '../domains/index.js';
import { expireLapsedMoves, findPendingMoveOfDomain, insertDomainMove, lockAndCountPendingMovesFrom, type DomainMove } from './domainMoves.repository.js';
import { DomainMoveLimitError } from './errors.js';
import { checkMovable, pendingMovesAllowed, PROPOSER_ROLES } from './moveChecks.js';
import { mailBothSides } from './moveNotices.js';
import { modeOf } from '../../db/modeScope.js';

/** What every move action needs: its dependencies, the caller, and the request (for audit). */
export interface MoveRequest {
  deps: Pick<PlatformDeps, 'db' | 'temporal' | 'config'>;
  mailer: Mailer;
  log: Logger;
  principal: Principal;
  requestId: string;
}

/**
 * Proposes to move the organisation's domain to another organisation, named by its id (owners and
 * admins of the source). Nothing changes hands until an owner or admin of the target accepts.
 * Whether the target exists is never looked at: the answer, its timing and the source's e-mail are
 * the same for an id no organisation has, whose move expires unanswered (docs/api-guide.md, Moving
 * a domain). At most pendingMovesAllowed(plan) pending moves per source and mode.
 */
export async function proposeMove(props: MoveRequest & { orgId: string; plan: Plan; domainName: DomainName; toOrgId: string }): Promise<DomainMove> {
  const { deps, principal } = props;
  const mode = modeOf(principal.livemode);
  if (props.toOrgId === props.orgId) {
    throw new ValidationError([{ loc: ['body', 'to_org_id'], msg: 'The domain is already in this organisation; name another one', type: 'same_organization' }]);
  }
  const found = await domainNamed(deps.db, mode, props.orgId, props.domainName);
  const move = await withTransaction(deps.db, async (tx) => {
    // Under the domain's lock, which renewals, expiry and acceptance take too.
    const domain = await lockDomain(tx, mode, found.id);
    if (!domain || domain.orgId !== props.orgId) throw new NotFoundError('Domain not found');
    // The route read the caller's role from a read up to 1.5 s old: asked again under a lock, so a
    // removal or demotion either waits for this proposal (and cancels it) or has already refused it.
    const role = await lockMembershipRole(tx, props.orgId, principal.user.id);
    if (!role || !PROPOSER_ROLES.includes(role)) throw new ForbiddenError(`This needs the organisation role ${PROPOSER_ROLES.join(' or ')}; yours is ${role ?? 'none'}`);
    await checkMovable(tx, mode, domain);
    await expireLapsedMoves(tx, mode, domain.id);
    const pending = await findPendingMoveOfDomain(tx, mode, domain.id);
    if (pending) {
      throw new ConflictError('DOMAIN_STATE_CONFLICT', `A move of ${domain.name} (${pending.id}) is already pending; cancel it first`);
    }
    const allowed = pendingMovesAllowed(props.plan);
    if ((await lockAndCountPendingMovesFrom(tx, mode, props.orgId)) >= allowed) throw new DomainMoveLimitError(allowed);
    const inserted = await insertDomainMove(tx, mode, {
      id: newId('mov'),
      domainId: domain.id,
      domainName: domain.name,
      fromOrgId: props.orgId,
      toOrgId: props.toOrgId,
      proposedBy: principal.user.id,
    });
    await auditCallerAction(tx, props, {
      action: 'domain.move_proposed',
      orgId: props.orgId,
      targetType: 'domain_move',
      targetId: inserted.id,
      data: { domain: domain.name, to_org_id: props.toOrgId, livemode: mode.livemode },
    });
    return inserted;
  });
  await mailBothSides({ db: deps.db, mailer: props.mailer, log: props.log, move, kind: 'proposed' });
  return move;
}
