import type { Queryable } from '../../db/pool.js';
import { ModeScopedTable, modeScopedParams, type Mode } from '../../db/modeScope.js';
import { keyset, type PageRequest } from '../../db/keyset.js';

export type DomainMoveStatus = 'pending' | 'accepted' | 'cancelled' | 'expired';

export interface DomainMove {
  id: string;
  livemode: boolean;
  domainId: string;
  domainName: string;
  fromOrgId: string;
  fromOrgName: string;
  toOrgId: string;
  /** Null when no organisation has that id: a move may be proposed to any (docs/api-guide.md, Moving a domain). */
  toOrgName: string | null;
  /** As stored: a `pending` move past `expiresAt` is expired all the same (effectiveStatus). */
  status: DomainMoveStatus;
  proposedBy: string;
  decidedBy: string | null;
  cancelledByOrgId: string | null;
  createdAt: Date;
  expiresAt: Date;
  decidedAt: Date | null;
}

const moves = new ModeScopedTable<DomainMove>(
  'domain_moves',
  `id, livemode, domain_id AS "domainId", domain_name AS "domainName",
   from_org_id AS "fromOrgId", (SELECT o.name FROM organizations o WHERE o.id = from_org_id) AS "fromOrgName",
   to_org_id AS "toOrgId", (SELECT o.name FROM organizations o WHERE o.id = to_org_id) AS "toOrgName",
   status, proposed_by AS "proposedBy", decided_by AS "decidedBy", cancelled_by_org_id AS "cancelledByOrgId",
   created_at AS "createdAt", expires_at AS "expiresAt", decided_at AS "decidedAt"`,
);

/** What a move is now: a pending one whose time ran out is expired, whether or not its row says so yet. */
export function effectiveStatus(move: Pick<DomainMove, 'status' | 'expiresAt'>, now = new Date()): DomainMoveStatus {
  return move.status === 'pending' && move.expiresAt.getTime() <= now.getTime() ? 'expired' : move.status;
}

export function insertDomainMove(
  db: Queryable,
  mode: Mode,
  move: Pick<DomainMove, 'id' | 'domainId' | 'domainName' | 'fromOrgId' | 'toOrgId' | 'proposedBy'>,
): Promise<DomainMove> {
  // `expires_at` is the column's default: 7 days after `created_at`, both the transaction's time.
  return moves.insert(db, mode, {
    id: move.id,
    domain_id: move.domainId,
    domain_name: move.domainName,
    from_org_id: move.fromOrgId,
    to_org_id: move.toOrgId,
    status: 'pending',
    proposed_by: move.proposedBy,
  });
}

/** Marks the domain's pending move expired once its time has run out, so a new one may be proposed. */
export async function expireLapsedMoves(db: Queryable, mode: Mode, domainId: string): Promise<void> {
  await moves.update(db, mode, `domain_id = $2 AND status = 'pending' AND expires_at <= now()`, [domainId], { status: 'expired' });
}

/** A move the organisation is a side of (`side`: source, target or either); another's looks missing. */
export async function findDomainMove(
  db: Queryable,
  mode: Mode,
  props: { orgId: string; id: string; side: 'from' | 'to' | 'either'; forUpdate?: boolean },
): Promise<DomainMove | undefined> {
  const sides = { from: 'from_org_id = $3', to: 'to_org_id = $3', either: '(from_org_id = $3 OR to_org_id = $3)' };
  const [move] = await moves.select(db, mode, `id = $2 AND ${sides[props.side]}`, [props.id, props.orgId], props.forUpdate ? 'FOR UPDATE' : '');
  return move;
}

/** Newest first, by keyset on (created_at, id): the moves out of (`outgoing`) or into (`incoming`) the organisation. */
export function listDomainMoves(db: Queryable, mode: Mode, props: { orgId: string; direction: 'outgoing' | 'incoming' } & PageRequest): Promise<DomainMove[]> {
  const p = modeScopedParams();
  const column = props.direction === 'outgoing' ? 'from_org_id' : 'to_org_id';
  const page = keyset(p, { time: 'created_at', id: 'id' }, props);
  return moves.select(db, mode, `${column} = ${p.add(props.orgId)} AND ${page.condition}`, p.values, page.tail);
}

/** Ends a pending move (accepted or cancelled); undefined when it was no longer pending. */
export async function decideDomainMove(
  db: Queryable,
  mode: Mode,
  props: { id: string; status: 'accepted' | 'cancelled'; decidedBy: string; cancelledByOrgId?: string },
): Promise<DomainMove | undefined> {
  const [decided] = await moves.update(
    db,
    mode,
    `id = $2 AND status = 'pending'`,
    [props.id],
    { status: props.status, decided_by: props.decidedBy, cancelled_by_org_id: props.cancelledByOrgId ?? null },
    { now: ['decided_at'] },
  );
  return decided;
}

/** The domain's move still waiting for an answer, if any (at most one: domain_moves_one_pending_idx). */
export function findPendingMoveOfDomain(db: Queryable, mode: Mode, domainId: string): Promise<DomainMove | undefined> {
  return moves.findOne(db, mode, `domain_id = $2 AND status = 'pending'`, [domainId]);
}

/**
 * The source's pending moves in this mode, counted under a lock of them (pg_advisory_xact_lock), so
 * concurrent proposals of different domains cannot pass the bound together.
 */
export async function lockAndCountPendingMovesFrom(db: Queryable, mode: Mode, orgId: string): Promise<number> {
  await db.query(`SELECT pg_advisory_xact_lock(hashtext('domain_moves_pending:' || $1::text))`, [`${orgId}:${mode.livemode ? 'live' : 'test'}`]);
  return moves.count(db, mode, `from_org_id = $2 AND status = 'pending' AND expires_at > now()`, [orgId]);
}

/** Cancels, as the source, the moves out of `orgId` that `proposedBy` proposed and that still wait for an answer. */
export function cancelPendingMovesOfProposer(db: Queryable, mode: Mode, props: { orgId: string; proposedBy: string; decidedBy: string }): Promise<DomainMove[]> {
  return moves.update(
    db,
    mode,
    `from_org_id = $2 AND proposed_by = $3 AND status = 'pending' AND expires_at > now()`,
    [props.orgId, props.proposedBy],
    { status: 'cancelled', decided_by: props.decidedBy, cancelled_by_org_id: props.orgId },
    { now: ['decided_at'] },
  );
}
