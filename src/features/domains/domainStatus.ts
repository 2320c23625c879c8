import type { Queryable } from '../../db/pool.js';
import type { Mode } from '../../db/modeScope.js';
import { findDomainById, writeDomainStatus, type Domain, type DomainStatus, type DomainTermChanges } from './domains.repository.js';
import { ConflictError, NotFoundError } from '../../errors.js';

/**
 * Every status a domain may go to, by where it is (docs/api-guide.md, Operations and workflows). `active → active` is
 * a renewal (a new expiry); `failed` and `deleted` are final.
 */
export const DOMAIN_TRANSITIONS: Record<DomainStatus, readonly DomainStatus[]> = {
  registering: ['active', 'failed'],
  transfer_pending: ['active', 'failed'],
  active: ['active', 'expired'],
  expired: ['active', 'deleted'],
  failed: [],
  deleted: [],
};

/** The statuses from which a domain may become `to`. */
export function statusesLeadingTo(to: DomainStatus): DomainStatus[] {
  return (Object.keys(DOMAIN_TRANSITIONS) as DomainStatus[]).filter((from) => DOMAIN_TRANSITIONS[from].includes(to));
}

export interface ChangeDomainStatusProps {
  db: Queryable;
  mode: Mode;
  domainId: string;
  to: DomainStatus;
  /** A new expiry or registrar reference written with it (a registration, transfer or renewal ending). */
  changes?: DomainTermChanges;
}

/**
 * The one place a domain's status changes. The write happens only from a status allowed to lead to
 * `to` (checked in the same UPDATE, so a concurrent change cannot slip between); a retry that finds
 * the domain already at `to` is answered with it. Anything else is 409 DOMAIN_STATE_CONFLICT.
 */
export async function changeDomainStatus(props: ChangeDomainStatusProps): Promise<Domain> {
  const changed = await writeDomainStatus(props.db, props.mode, {
    id: props.domainId,
    from: statusesLeadingTo(props.to),
    to: props.to,
    changes: props.changes ?? {},
  });
  if (changed) return changed;
  const current = await findDomainById(props.db, props.mode, props.domainId);
  if (!current) throw new NotFoundError('Domain not found');
  if (current.status === props.to) return current;
  throw new ConflictError('DOMAIN_STATE_CONFLICT', `${current.name} is ${current.status} and cannot become ${props.to}`);
}

/** A registration, transfer or renewal that the registrar finished: active, with its expiry and reference. */
export function activateDomain(props: {
  db: Queryable;
  mode: Mode;
  domainId: string;
  expiresAt: string | null | undefined;
  /** Null keeps the stored reference (the work was recognised from the domain itself). */
  registrarReference: string | null;
}): Promise<Domain> {
  return changeDomainStatus({
    db: props.db,
    mode: props.mode,
    domainId: props.domainId,
    to: 'active',
    changes: {
      ...(props.expiresAt ? { expires_at: new Date(props.expiresAt) } : {}),
      ...(props.registrarReference !== null ? { registrar_reference: props.registrarReference } : {}),
    },
  });
}
