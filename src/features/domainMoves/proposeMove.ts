import type { AppDeps } from '../../deps.js';
import { withTransaction } from '../../db/pool.js';
import type { Principal } from '../../auth/principal.js';
import type { Logger } from '../../logger.js';
import type { Mailer } from '../../mail/mailer.js';
import type { DomainName } from '../../domainName.js';
import { findMembershipWithOrganization } from '../../auth/organizations.js';
import { auditCallerAction } from '../../audit/auditEvents.js';
import { ConflictError, NotFoundError, ValidationError } from '../../errors.js';
import { newId } from '../../ids.js';
import { lockDomain } from '../domains/domains.repository.js';
import { domainNamed } from '../domains/lookup.js';
import { expireLapsedMoves, findPendingMoveOfDomain, insertDomainMove, type DomainMove } from './domainMoves.repository.js';
import { checkMovable } from './moveChecks.js';
import { mailBothSides } from './moveNotices.js';

/** What every move action needs: its dependencies, the caller, and the request (for audit). */
export interface MoveRequest {
  deps: Pick<AppDeps, 'db' | 'temporal' | 'config'>;
  mailer: Mailer;
  log: Logger;
  principal: Principal;
  requestId: string;
}

/**
 * Proposes to move the organisation's domain to another organisation the caller belongs to (owners
 * and admins of the source, checked on the route). Nothing changes hands until the target accepts.
 * An organisation the caller is not in answers as one that does not exist (404).
 */
export async function proposeMove(props: MoveRequest & { orgId: string; domainName: DomainName; toOrgId: string }): Promise<DomainMove> {
  const { deps, principal } = props;
  const mode = { livemode: principal.livemode };
  if (props.toOrgId === props.orgId) {
    throw new ValidationError([{ loc: ['body', 'to_org_id'], msg: 'The domain is already in this organisation; name another one', type: 'same_organization' }]);
  }
  if (!(await findMembershipWithOrganization(deps.db, props.toOrgId, principal.user.id))) throw new NotFoundError('Organisation not found');
  const found = await domainNamed(deps.db, mode, props.orgId, props.domainName);
  const move = await withTransaction(deps.db, async (tx) => {
    // Under the domain's lock, which renewals, expiry and acceptance take too.
    const domain = await lockDomain(tx, mode, found.id);
    if (!domain || domain.orgId !== props.orgId) throw new NotFoundError('Domain not found');
    await checkMovable(tx, mode, domain, props.toOrgId);
    await expireLapsedMoves(tx, mode, domain.id);
    const pending = await findPendingMoveOfDomain(tx, mode, domain.id);
    if (pending) {
      throw new ConflictError('DOMAIN_STATE_CONFLICT', `A move of ${domain.name} (${pending.id}) is already pending; cancel it first`);
    }
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
