import type pg from 'pg';
import type { Queryable } from '../../db/pool.js';
import { ModeScopedTable, type Mode, modeOf } from '../../db/modeScope.js';
import { minorUnits, type Currency } from '../../db/money.js';
import { lockedLineageSql } from '../../auth/apiKeys.js';

export type ReservationState = 'reserved' | 'captured' | 'released';

/** Money held for one operation; the operation id is its key. */
export interface Reservation {
  operationId: string;
  orgId: string;
  livemode: boolean;
  amount: number;
  currency: Currency;
  state: ReservationState;
  description: string;
  createdAt: Date;
  settledAt: Date | null;
}

type ReservationRow = Omit<Reservation, 'amount'> & { amount: string };

const reservations = new ModeScopedTable<ReservationRow>(
  'billing_reservations',
  `operation_id AS "operationId", org_id AS "orgId", livemode, amount, currency, state, description,
   created_at AS "createdAt", settled_at AS "settledAt"`,
);

const toReservation = (row: ReservationRow): Reservation => ({ ...row, amount: minorUnits(row.amount) });

/**
 * The organisation and mode an operation's reservation belongs to, found by the operation id alone.
 * This is the one read of a mode-scoped table that is not filtered by a caller's mode: capture and
 * release run for an operation (from its workflow), not for a caller, and the operation id is a key
 * the service minted. It returns only the scope; every read and write after it is scoped to that mode.
 */
export async function findReservationScope(
  db: Queryable,
  operationId: string,
): Promise<{ orgId: string; mode: Mode } | undefined> {
  const { rows } = await db.query<{ orgId: string; livemode: boolean }>(
    'SELECT org_id AS "orgId", livemode FROM billing_reservations WHERE operation_id = $1',
    [operationId],
  );
  const row = rows[0];
  return row && { orgId: row.orgId, mode: modeOf(row.livemode) };
}

export async function findReservation(db: Queryable, mode: Mode, operationId: string): Promise<Reservation | undefined> {
  const row = await reservations.findOne(db, mode, 'operation_id = $2', [operationId]);
  return row && toReservation(row);
}

/** Undefined when the operation id already has a reservation (in either mode). */
export async function insertReservation(
  tx: Queryable,
  mode: Mode,
  props: { operationId: string; orgId: string; amount: number; description: string; apiKeyId: string | null },
): Promise<Reservation | undefined> {
  const row = await reservations.insertIfAbsent(tx, mode, {
    operation_id: props.operationId,
    org_id: props.orgId,
    amount: props.amount,
    description: props.description,
    api_key_id: props.apiKeyId,
  });
  return row && toReservation(row);
}

/** Moves a `reserved` reservation to its final state; undefined when it was not `reserved`. */
export async function settleReservation(
  tx: Queryable,
  mode: Mode,
  operationId: string,
  state: Exclude<ReservationState, 'reserved'>,
): Promise<Reservation | undefined> {
  const [row] = await reservations.update(tx, mode, "operation_id = $2 AND state = 'reserved'", [operationId], {
    state,
    settled_at: new Date(),
  });
  return row && toReservation(row);
}

/**
 * Reservations still `reserved` although their operation failed or was cancelled (a crash between
 * the two writes): the stranded-operations run releases them. Read across modes like findReservationScope, for
 * the same reason; the release that follows is scoped to each reservation's own mode.
 */
export async function listReservedOfFinishedOperations(db: Queryable, limit: number): Promise<string[]> {
  const { rows } = await db.query<{ operationId: string }>(
    `SELECT r.operation_id AS "operationId" FROM billing_reservations r
     JOIN operations o ON o.id = r.operation_id AND o.livemode = r.livemode
     WHERE r.state = 'reserved' AND o.status IN ('failed', 'cancelled')
     ORDER BY r.created_at LIMIT $1`,
    [limit],
  );
  return rows.map((row) => row.operationId);
}

/**
 * What this calendar month's (UTC) reservations add up to: held ones in full, captured ones for what
 * was captured (a partial capture released the rest), released ones not at all. A reservation counts
 * in the month it was made, the month whose limit admitted it.
 */
const SPENT = 'r.amount - COALESCE(rest.amount, 0)';
const MONTH_RESERVATIONS = `
  LEFT JOIN billing_transactions rest ON rest.operation_id = r.operation_id AND rest.type = 'release'
  WHERE r.state <> 'released' AND r.created_at >= date_trunc('month', now() AT TIME ZONE 'UTC') AT TIME ZONE 'UTC'`;

/** This month's spending of an organisation in one mode. */
export async function monthSpendingOfOrg(db: Queryable, mode: Mode, orgId: string): Promise<number> {
  const { rows } = await db.query<{ spent: string }>(
    `SELECT COALESCE(SUM(${SPENT}), 0) AS spent FROM billing_reservations r ${MONTH_RESERVATIONS} AND r.org_id = $1 AND r.livemode = $2`,
    [orgId, mode.livemode],
  );
  return minorUnits(rows[0]!.spent);
}

/**
 * This month's spending, in every organisation and mode, of each of `keyIds` together with every key
 * below it in the lineage rooted at `rootKeyId` (deleted and revoked keys included), keyed by key id.
 */
export async function monthSpendingOfKeyLineages(db: Queryable, rootKeyId: string, keyIds: string[]): Promise<Map<string, number>> {
  const { rows } = await db.query<{ keyId: string; spent: string }>(
    `SELECT g.id AS "keyId", COALESCE(SUM(s.spent), 0) AS spent
     FROM unnest($2::text[]) AS g(id)
     LEFT JOIN (
       SELECT k.lineage, ${SPENT} AS spent
       FROM api_keys k JOIN billing_reservations r ON r.api_key_id = k.id ${MONTH_RESERVATIONS} AND k.lineage[1] = $1
     ) s ON g.id = ANY(s.lineage)
     GROUP BY g.id`,
    [rootKeyId, keyIds],
  );
  return new Map(rows.map((row) => [row.keyId, minorUnits(row.spent)]));
}

/** What a reservation from an unlimited balance is asked with. */
export interface UnlimitedReservation {
  operationId: string;
  orgId: string;
  amount: number;
  description: string;
  apiKeyId: string | null;
  ledgerEntryId: string;
}

/** The parameters $1 to $7 of unlimitedReservationCtes, in its order. */
function unlimitedReservationParams(mode: Mode, props: UnlimitedReservation): unknown[] {
  return [mode.livemode, props.operationId, props.orgId, props.amount, props.description, props.apiKeyId, props.ledgerEntryId];
}

/**
 * The CTEs of a reservation in one statement (`lineage`, `moved`, `held`, `reserved`), for a balance
 * without a monthly spending limit, asked for by a key whose lineage has none either; parameters $1 to
 * $7 (unlimitedReservationParams). With a key, `lineage` first takes the key lineage's lock
 * (lockedLineageSql, always, and before the balance row's, as every reservation orders them) and reads
 * its limits. `moved` then takes the balance row's lock and moves the amount from available to reserved
 * only if it is there and nothing is limited; `held` and `reserved` write the reservation and its ledger
 * entry from the balance it left, and `reserved` returns one row (operation_id) once the money is
 * held. Nothing moves when the balance is short, a limit is to be counted under the locks, or the
 * balance does not exist yet. An operation id that has a reservation already is skipped (`held` is
 * empty while `moved` is not) or, with `onConflict: 'fail'`, fails the statement.
 */
function unlimitedReservationCtes(withKey: boolean, onConflict: 'skip' | 'fail'): string {
  // `moved`'s NOT EXISTS reads the lineage (so takes its lock) before the balance row is locked.
  const lineage = withKey ? lockedLineageSql('$6') : 'SELECT NULL::float8 AS "limit" WHERE false';
  return `lineage AS MATERIALIZED (${lineage}), moved AS (
       UPDATE billing_balances SET available = available - $4, reserved = reserved + $4, updated_at = now()
       WHERE livemode = $1 AND org_id = $3 AND available >= $4 AND monthly_spend_limit IS NULL
         AND NOT EXISTS (SELECT 1 FROM lineage WHERE "limit" IS NOT NULL)
       RETURNING available, reserved
     ), held AS (
       INSERT INTO billing_reservations (livemode, operation_id, org_id, amount, description, api_key_id)
       SELECT $1, $2, $3, $4, $5, $6 FROM moved
       ${onConflict === 'skip' ? 'ON CONFLICT DO NOTHING ' : ''}RETURNING operation_id
     ), reserved AS (
       INSERT INTO billing_transactions (livemode, id, org_id, type, amount, operation_id, description, available_after, reserved_after)
       SELECT $1, $7, $3, 'reservation', $4, $2, $5, moved.available, moved.reserved FROM moved, held
       RETURNING operation_id
     )`;
}

/**
 * A reservation in one statement (unlimitedReservationCtes). Nothing moves when the balance is short,
 * a limit is to be counted under the locks, or the balance does not exist yet: the caller then takes
 * the long way (reserve's, whose taking of the lineage's lock again is a no-op), which says why.
 * `reserved` false with `balanceMoved` true: the operation id has a reservation already, and the
 * caller must fail its transaction.
 */
export async function reserveFromUnlimitedBalance(tx: Queryable, mode: Mode, props: UnlimitedReservation): Promise<{ reserved: boolean; balanceMoved: boolean }> {
  // The final SELECT reads the lineage too, so its lock is taken even when the UPDATE's other conditions fail first.
  const { rows } = await tx.query<{ reserved: boolean; moved: boolean }>(
    `WITH ${unlimitedReservationCtes(props.apiKeyId !== null, 'skip')}
     SELECT EXISTS (SELECT 1 FROM reserved) AS reserved, EXISTS (SELECT 1 FROM moved) AS moved,
       (SELECT count(*) FROM lineage)::int AS "lineageKeys"`,
    unlimitedReservationParams(mode, props),
  );
  const row = rows[0]!;
  return { reserved: row.reserved, balanceMoved: row.moved };
}

/**
 * Another feature's rows as CTEs that follow a reservation's in its one statement, written only with
 * the reservation: each selects FROM `reserved` (one row, `operation_id`, once the money is held; none
 * otherwise) or from a CTE that does.
 */
export interface RowsInOneStatement {
  /** The prepared statement's name (one per text, docs/operations.md); `-by-key` is added for a key's. */
  name: string;
  /** The CTEs, their parameters numbered from `first` (the reservation's come before). */
  ctes(first: number): string;
  /** Their parameters, `$first` on. */
  values: unknown[];
  /** The CTE whose first row answers the statement. */
  answer: string;
}

/**
 * A reservation and `rows` in one statement, which commits on its own: one round trip and one commit
 * where a transaction takes five (docs/bench.md). Undefined, with nothing written, when the reservation
 * cannot be made this way (a short balance, a spending limit, no balance yet). A unique index refusing
 * a row (one of `rows`, or a reservation already made for the operation id) fails the whole statement,
 * with the index's SQLSTATE, as it would fail a transaction.
 */
export async function reserveWithRowsFromUnlimitedBalance<T extends pg.QueryResultRow>(
  db: Queryable,
  mode: Mode,
  props: UnlimitedReservation,
  rows: RowsInOneStatement,
): Promise<T | undefined> {
  const withKey = props.apiKeyId !== null;
  const reservation = unlimitedReservationParams(mode, props);
  // Named, so each connection parses and plans it once (docs/operations.md).
  const { rows: answered } = await db.query<T>({
    name: withKey ? `${rows.name}-by-key` : rows.name,
    text: `WITH ${unlimitedReservationCtes(withKey, 'fail')}, ${rows.ctes(reservation.length + 1)}
     SELECT * FROM ${rows.answer}`,
    values: [...reservation, ...rows.values],
  });
  return answered[0];
}
