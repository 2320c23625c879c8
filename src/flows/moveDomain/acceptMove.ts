import type pg from 'pg';
import { withTransaction } from '../../db/pool.js';
import { type Mode, modeOf } from '../../db/modeScope.js';
import { listOwnerAndAdminEmails, lockMembershipRole } from '../../auth/memberships.js';
import { auditCallerAction } from '../../audit/auditEvents.js';
import { ConflictError, NotFoundError } from '../../errors.js';
import { newId } from '../../ids.js';
import { findDomainById, linkDomainContacts, lockDomain, unlinkDomainContacts, type Domain } from '../../features/domains/index.js';
import { CONTACT_COLUMNS, findContact, insertContact, type ContactFields } from '../../features/contacts/index.js';
import { emitEvent } from '../../features/webhooks/index.js';
import { watchDomain } from '../../features/lifecycle/index.js';
import { decideDomainMove, effectiveStatus, findDomainMove, type DomainMove, handDomainOver, handRecordsOver, readdressUnmailedNotices, handDnssecOver, presentDomainMove, MoveNotPendingError, MoveProposerGoneError, checkMovable, checkTargetFree, PROPOSER_ROLES, mailBothSides, moveOfCaller, type MoveRequest } from '../../features/domainMoves/index.js';

/**
 * Moving a domain between organisations, the step that crosses features: a proposal is
 * domainMoves' record (src/features/domainMoves/), its acceptance hands over what domains, contacts,
 * DNS and the lifecycle hold of the domain, with webhooks' events.
 */

/**
 * The target accepts (owners and admins, checked on the route): in one transaction the domain, its
 * contacts (copied into the target), DNS records, DNS zone ownership (by the domain's id, which
 * stays), unmailed notices and auto-renew setting become the target's, with the events and audit
 * entries of both sides. No charge, no registrar call. Then the lifecycle is told, and the owners
 * of both sides are e-mailed. Only while the proposer is still an owner or admin of the source.
 */
export async function acceptMove(props: MoveRequest & { orgId: string; moveId: string }): Promise<DomainMove> {
  const { deps, principal } = props;
  const mode = modeOf(principal.livemode);
  const seen = await moveOfCaller(props, 'to');
  const { move, domain } = await withTransaction(deps.db, async (tx) => {
    // The domain's lock first, as renewals and proposals take it; then the proposer's membership,
    // shared: a removal or demotion of the proposer has either committed first, cancelling the move
    // (src/features/domainMoves/proposerMoves.ts), or waits until this acceptance has committed; the move's lock last.
    const locked = await lockDomain(tx, mode, seen.domainId);
    const proposerRole = await lockMembershipRole(tx, seen.fromOrgId, seen.proposedBy);
    const current = await findDomainMove(tx, mode, { orgId: props.orgId, id: seen.id, side: 'to', forUpdate: true });
    if (!current) throw new NotFoundError('Domain move not found');
    const status = effectiveStatus(current);
    if (status !== 'pending') throw new MoveNotPendingError(current.id, status);
    if (!proposerRole || !PROPOSER_ROLES.includes(proposerRole)) throw new MoveProposerGoneError(current.id);
    if (!locked || locked.orgId !== current.fromOrgId) throw new ConflictError('DOMAIN_STATE_CONFLICT', `${current.domainName} no longer belongs to the source organisation`);
    // A renewal that committed first wins: the move waits until it has finished (409 naming it).
    await checkMovable(tx, mode, locked);
    await checkTargetFree(tx, mode, locked, current.toOrgId);
    await handOver(tx, mode, locked, current.toOrgId);
    const accepted = await decideDomainMove(tx, mode, { id: current.id, status: 'accepted', decidedBy: principal.user.id });
    if (!accepted) throw new MoveNotPendingError(current.id, 'accepted');
    for (const [type, orgId] of [['domain.moved_out', accepted.fromOrgId], ['domain.moved_in', accepted.toOrgId]] as const) {
      await emitEvent({ db: tx, orgId, livemode: mode.livemode, type, object: presentDomainMove(accepted, orgId), dedupeSeed: `${type}|${accepted.id}` });
      await auditCallerAction(tx, props, {
        action: type,
        orgId,
        targetType: 'domain_move',
        targetId: accepted.id,
        data: { domain: accepted.domainName, from_org_id: accepted.fromOrgId, to_org_id: accepted.toOrgId, livemode: mode.livemode },
      });
    }
    return { move: accepted, domain: (await findDomainById(tx, mode, locked.id))! };
  });
  await tellLifecycle(props, domain);
  await mailBothSides({ db: deps.db, mailer: props.mailer, log: props.log, move, kind: 'accepted' });
  return move;
}

/** Everything of the domain that belongs to an organisation, given to the target, in the caller's transaction. */
async function handOver(tx: pg.PoolClient, mode: Mode, domain: Domain, toOrgId: string): Promise<void> {
  const contacts = await copyContacts(tx, mode, domain, toOrgId);
  await handDomainOver(tx, mode, { domainId: domain.id, toOrgId, contacts });
  await unlinkDomainContacts(tx, mode, domain.id);
  await linkDomainContacts(tx, mode, domain.id, contacts);
  await handRecordsOver(tx, mode, { domainId: domain.id, toOrgId });
  await handDnssecOver(tx, mode, { domainId: domain.id, toOrgId });
  await readdressUnmailedNotices(tx, mode, { domainId: domain.id, toOrgId, recipients: await listOwnerAndAdminEmails(tx, toOrgId) });
}

/**
 * The domain's contacts, copied into the target: the source keeps its own (other domains may use
 * them) and the target can read and change the ones its domain now names. The copies carry no
 * registrar contact id: the registrar still holds the domain with the contacts it had, and a copy
 * is created there when the target first uses it (src/features/contacts/).
 */
async function copyContacts(tx: pg.PoolClient, mode: Mode, domain: Domain, toOrgId: string): Promise<{ registrant: string; admin: string | null; tech: string | null }> {
  const copies = new Map<string, string>();
  const copy = async (id: string | null): Promise<string | null> => {
    if (id === null) return null;
    const known = copies.get(id);
    if (known) return known;
    const contact = await findContact(tx, mode, { orgId: domain.orgId, id });
    if (!contact) return null;
    const fields = Object.fromEntries(Object.keys(CONTACT_COLUMNS).map((field) => [field, contact[field as keyof ContactFields]])) as unknown as ContactFields;
    const created = await insertContact(tx, mode, { id: newId('ct'), orgId: toOrgId, fields });
    copies.set(id, created.id);
    return created.id;
  };
  const registrant = await copy(domain.registrantContactId);
  if (!registrant) throw new ConflictError('DOMAIN_STATE_CONFLICT', `The registrant contact of ${domain.name} is missing`);
  return { registrant, admin: await copy(domain.adminContactId), tech: await copy(domain.techContactId) };
}

/**
 * The lifecycle workflow takes the new organisation (input and search attribute). Its steps read the
 * domain's organisation from the database, so a failure here is logged, not answered: the move stands.
 */
async function tellLifecycle(props: MoveRequest, domain: Domain): Promise<void> {
  try {
    await watchDomain({ temporal: props.deps.temporal, config: props.deps.config, domain, reason: 'moved', moved: true });
  } catch (err) {
    props.log.warn({ err, domainId: domain.id }, 'could not tell the lifecycle of a moved domain; its steps act for the new organisation all the same');
  }
}
