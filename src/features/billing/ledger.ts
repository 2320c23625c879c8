import type pg from 'pg';
import { withTransaction, type Db, type Queryable } from '../../db/pool.js';
import { type Mode, modeOf } from '../../db/modeScope.js';
import { lockBalance, setBalance, type Balance } from './balances.repository.js';
import {
  findReservation,
  findReservationScope,
  insertReservation,
  reserveFromUnlimitedBalance,
  reserveWithRowsFromUnlimitedBalance,
  settleReservation,
  type Reservation,
  type RowsInOneStatement,
  type UnlimitedReservation,
} from './reservations.repository.js';
import { findLedgerEntry, insertLedgerEntry, listLedgerEntriesOfOperation, type LedgerEntry } from './transactions.repository.js';
import { enforceMonthlyLimits } from './spendLimits.js';
import type { AuditEvent } from '../../audit/auditEvents.js';
import { ConflictError, NotFoundError } from '../../errors.js';
import { InsufficientFundsError } from './errors.js';
import type { ErrorCode } from '../../http/errorCodes.js';
import { lockApiKeyLineage } from '../../auth/apiKeys.js';
import { newId } from '../../ids.js';
import { recordLedgerEntry } from '../../metrics/record.js';

/**
 * The billing ledger: money moves only here, through topUp, reserve, capture and release (no other
 * code writes billing's tables). The ledger's invariants, and where each is kept:
 *
 * - **A balance's `available` and `reserved` never go negative.** Every movement locks the balance row
 *   of its (organisation, mode) first (lockBalance; in reserve's one statement, its UPDATE) and checks
 *   the amounts under that lock, so concurrent movements of one balance take turns; a reservation
 *   short of funds is 402 INSUFFICIENT_FUNDS and moves nothing. The table's CHECK constraints are the
 *   backstop.
 * - **Captured plus reserved stay within the monthly spending limits** of the organisation (per mode)
 *   and of the asking API key and every key above it in its lineage: reserve counts this month's
 *   reservations, held ones in full and captured ones for what they kept, under the key lineage's lock
 *   and then the balance row's, always in that order, so concurrent reservations cannot overshoot
 *   together (enforceMonthlyLimits in spendLimits.ts; 402 SPEND_LIMIT_REACHED). Its one-statement way
 *   is taken only where no limit applies. A capture never spends more than was reserved.
 * - **Each operation is charged at most once.** The operation id is the reservation's key: reserving
 *   for it again returns its reservation while that is held (409 RESERVATION_MISMATCH with other
 *   terms, 409 RESERVATION_STATE_CONFLICT once settled), and the ledger's unique index on (operation,
 *   entry type) refuses a second reservation, capture or release entry whatever SQL is sent.
 * - **A reservation is captured or released at most once.** It leaves `reserved` for `captured` or
 *   `released` only under its balance row's lock, and only from `reserved` (settleReservation): a
 *   capture or release repeated answers it as it is, the other one after it is 409
 *   RESERVATION_STATE_CONFLICT. A capture spends all of it or a share, the rest released at once.
 *
 * These take plain props, no request context: Temporal activities call them.
 */

/** A second reserve for an operation id with another amount (or organisation, or mode). 409. */
export const RESERVATION_MISMATCH = 'RESERVATION_MISMATCH' satisfies ErrorCode;
/** Capture of a released reservation, release of a captured one, or reserving a settled one again. 409. */
export const RESERVATION_STATE_CONFLICT = 'RESERVATION_STATE_CONFLICT' satisfies ErrorCode;

/** Who moved money, for the ledger entry: a caller's user and key (see actorOf), or nobody (the system). */
export type LedgerActor = Pick<AuditEvent, 'actorUserId' | 'actorKeyId'>;

function assertAmount(amount: number): void {
  if (!Number.isSafeInteger(amount) || amount <= 0) throw new RangeError(`amount must be a positive integer of minor units, got ${amount}`);
}

export interface TopUpProps {
  db: Db;
  orgId: string;
  livemode: boolean;
  /** Minor units, positive. */
  amount: number;
  actor: LedgerActor;
  requestId: string | null;
  /** Shown on the ledger entry; `Top-up` unless said otherwise (an operator's credit names its reason). */
  description?: string;
  /**
   * The entry's id when the request derives one (idempotentId): a top-up already posted under it is
   * answered as it is, credited once however often the request runs.
   */
  entryId?: string | undefined;
}

/** Adds money to `available`; returns the ledger entry. */
export async function topUp(props: TopUpProps): Promise<LedgerEntry> {
  return withTransaction(props.db, (tx) => topUpWithin(tx, props));
}

/** topUp inside the caller's transaction, for callers that write more (an audit event) all or nothing. */
export async function topUpWithin(tx: Queryable, props: Omit<TopUpProps, 'db'>): Promise<LedgerEntry> {
  assertAmount(props.amount);
  const mode: Mode = modeOf(props.livemode);
  const balance = await lockBalance(tx, mode, props.orgId);
  // Under the balance's lock, so two runs of one request cannot both miss the entry.
  const posted = props.entryId === undefined ? undefined : await findLedgerEntry(tx, mode, { orgId: props.orgId, id: props.entryId });
  if (posted) return posted;
  const after = await setBalance(tx, mode, props.orgId, { available: balance.available + props.amount, reserved: balance.reserved });
  return insertLedgerEntry(tx, mode, {
    id: props.entryId,
    orgId: props.orgId,
    type: 'top_up',
    amount: props.amount,
    operationId: null,
    description: props.description ?? 'Top-up',
    availableAfter: after.available,
    reservedAfter: after.reserved,
    ...props.actor,
    requestId: props.requestId,
  });
}

/** What a reservation holds, and for whom. */
export interface ReservationTerms {
  orgId: string;
  livemode: boolean;
  operationId: string;
  /** Minor units, positive. */
  amount: number;
  /** Shown on the ledger entry, e.g. `Registration of example.com, 1 year`. */
  description: string;
  /**
   * The API key that asked for the operation: its monthly spending limit applies too, and so does the
   * limit of every key above it (the keys that created it, directly or not); absent: none.
   */
  apiKeyId?: string | null | undefined;
}

/** A reservation in a transaction of its own (`db`), or in the caller's (`tx`), committed or rolled back with it. */
export type ReserveProps = ReservationTerms & ({ db: Db; tx?: undefined } | { tx: pg.PoolClient; db?: undefined });

/**
 * What a reservation pays for: a new operation's rows in another feature's tables (the operation, the
 * domain it makes), written with the reservation all or nothing. The operation is new, so nothing has
 * reserved for its id yet (its rows' own keys see to that); the one-statement ways rely on it, and
 * fail with a unique violation or 409 RESERVATION_MISMATCH where a reservation is found.
 */
export interface PaidFor<T> {
  /** Writes the rows in the reservation's transaction; what it answers, reserve answers. */
  write(tx: pg.PoolClient): Promise<T>;
  /** The same rows as CTEs of the reservation's own statement (see reserve), answering as `write` does. */
  inOneStatement?: RowsInOneStatement;
}

/**
 * The one way to reserve: moves `amount` from `available` to `reserved` for an operation, with the
 * ledger's invariants above. 402 INSUFFICIENT_FUNDS when `available` is short, 402 SPEND_LIMIT_REACHED
 * past a monthly limit; nothing changes then.
 *
 * Alone, it is keyed by the operation id: reserving it again returns its reservation while that is
 * still `reserved`, without reserving again; once captured or released it is 409
 * RESERVATION_STATE_CONFLICT (a settled hold is never handed to a new request), and with another
 * amount, organisation or mode 409 RESERVATION_MISMATCH.
 *
 * With `paidFor`, the rows of the operation it pays for are written with it and their answer returned.
 * Where neither the balance nor the key's lineage has a monthly limit and the funds are there, the
 * reservation costs one statement (docs/bench.md: a registration's 202 waits on every round trip):
 * given `db` and `paidFor.inOneStatement`, the reservation and the rows are that one statement, which
 * commits on its own; given rows without that form, one statement after `paidFor.write`. Otherwise (a
 * limit to count, funds short, no balance yet, or rows of that form inside the caller's transaction)
 * it takes the long way, reserveUnderLocks, whose answers say why.
 */
export function reserve(props: ReserveProps): Promise<Reservation>;
export function reserve<T>(props: ReserveProps, paidFor: PaidFor<T>): Promise<T>;
export async function reserve<T>(props: ReserveProps, paidFor?: PaidFor<T>): Promise<Reservation | T> {
  assertAmount(props.amount);
  if (props.tx) return paidFor ? reservePaidFor(props.tx, props, paidFor) : reserveUnderLocks(props.tx, props);
  if (!paidFor) return withTransaction(props.db, (tx) => reserveUnderLocks(tx, props));
  const rows = paidFor.inOneStatement;
  if (rows) {
    const mode: Mode = modeOf(props.livemode);
    const written = await reserveWithRowsFromUnlimitedBalance<T & pg.QueryResultRow>(props.db, mode, unlimited(props), rows);
    if (written) {
      recordLedgerEntry('reservation', mode, props.amount);
      return written;
    }
  }
  return withTransaction(props.db, (tx) => reservePaidFor(tx, props, paidFor));
}

function unlimited(terms: ReservationTerms): UnlimitedReservation {
  return { ...terms, apiKeyId: terms.apiKeyId ?? null, ledgerEntryId: newId('txn') };
}

/**
 * A new operation's reservation and its rows in a transaction. Rows that can share the reservation's
 * statement are written after the locks that statement takes before them (the key lineage's, then the
 * balance row's), so the two ways never wait on each other in a circle, and the reservation is then made
 * the long way (the one statement commits on its own: not a way inside a transaction). Other rows are
 * written first and the reservation last, so the balance row is locked only for the end of the transaction.
 */
async function reservePaidFor<T>(tx: pg.PoolClient, terms: ReservationTerms, paidFor: PaidFor<T>): Promise<T> {
  if (paidFor.inOneStatement) {
    if (terms.apiKeyId) await lockApiKeyLineage(tx, terms.apiKeyId);
    await lockBalance(tx, modeOf(terms.livemode), terms.orgId);
    const written = await paidFor.write(tx);
    await reserveUnderLocks(tx, terms);
    return written;
  }
  const written = await paidFor.write(tx);
  await reserveNewOperation(tx, terms);
  return written;
}

/**
 * For an operation whose rows the transaction has just written, so nothing can have reserved for it
 * before: one statement that takes the lineage's lock and reserves (reserveFromUnlimitedBalance) when
 * nothing is limited and the funds are there, else reserveUnderLocks, with its answers (402, limits).
 */
async function reserveNewOperation(tx: pg.PoolClient, terms: ReservationTerms): Promise<void> {
  const mode: Mode = modeOf(terms.livemode);
  // Takes the key lineage's lock as reserveUnderLocks does (the key's lock before the balance row's).
  const result = await reserveFromUnlimitedBalance(tx, mode, unlimited(terms));
  if (result.reserved) {
    recordLedgerEntry('reservation', mode, terms.amount);
    return;
  }
  if (result.balanceMoved) {
    throw new ConflictError(RESERVATION_MISMATCH, `Operation ${terms.operationId} already has a reservation (amount ${terms.amount})`);
  }
  await reserveUnderLocks(tx, terms);
}

/**
 * The long way, statement by statement, under the key lineage's lock and then the balance row's: it
 * looks for the operation's reservation, checks the funds and counts the monthly limits, then moves
 * the amount and writes the reservation and its ledger entry. The balance row stays locked until the
 * transaction ends.
 */
async function reserveUnderLocks(tx: pg.PoolClient, terms: ReservationTerms): Promise<Reservation> {
  const mode: Mode = modeOf(terms.livemode);
  const mismatch = () =>
    new ConflictError(
      RESERVATION_MISMATCH,
      `Operation ${terms.operationId} already has a reservation that differs from this one (amount ${terms.amount})`,
    );
  // Lock first, then look: a concurrent reserve of the same operation is seen once it commits.
  // Always the key's lock before the balance row's, so two reservations never wait on each other in a circle.
  const apiKeyId = terms.apiKeyId ?? null;
  const lineage = apiKeyId ? await lockApiKeyLineage(tx, apiKeyId) : undefined;
  const balance = await lockBalance(tx, mode, terms.orgId);
  const existing = await findReservation(tx, mode, terms.operationId);
  if (existing) {
    if (existing.orgId !== terms.orgId || existing.amount !== terms.amount) throw mismatch();
    if (existing.state !== 'reserved') {
      throw new ConflictError(
        RESERVATION_STATE_CONFLICT,
        `The reservation of operation ${terms.operationId} was already ${existing.state}; it cannot be reserved again`,
      );
    }
    return existing;
  }
  if (balance.available < terms.amount) throw new InsufficientFundsError(balance.available, terms.amount, balance.currency);
  await enforceMonthlyLimits(tx, { balance, mode, orgId: terms.orgId, apiKeyId, lineage, amount: terms.amount });
  const after = await setBalance(tx, mode, terms.orgId, {
    available: balance.available - terms.amount,
    reserved: balance.reserved + terms.amount,
  });
  // Absent here but present there: the operation id belongs to the other mode.
  const reservation = await insertReservation(tx, mode, { ...terms, apiKeyId });
  if (!reservation) throw mismatch();
  await insertLedgerEntry(tx, mode, {
    ...systemEntry(terms.orgId, terms.operationId),
    type: 'reservation',
    amount: terms.amount,
    description: terms.description,
    availableAfter: after.available,
    reservedAfter: after.reserved,
  });
  return reservation;
}

/** A ledger entry of an operation's reservation, which no caller moves by hand: the workflow's, or the system's. */
function systemEntry(orgId: string, operationId: string) {
  return { orgId, operationId, actorUserId: null, actorKeyId: null, requestId: null };
}

export interface SettleProps {
  db: Db;
  operationId: string;
}

export interface CaptureProps extends SettleProps {
  /**
   * The operation did part of what was paid for (registered for one year of three: `{ done: 1, of: 3 }`):
   * that share of the reservation, rounded to the minor unit, is spent and the rest released. Absent: all of it.
   */
  share?: { done: number; of: number } | undefined;
}

/** A captured reservation and what of it was spent: all of `amount`, or a share (the rest was released). */
export interface CapturedReservation extends Reservation {
  captured: number;
}

/**
 * The one way to capture: the operation succeeded, so the reserved amount (or its share) is spent
 * (`reserved` goes down) and the rest of a share released, one ledger entry for each, in one
 * transaction; the reservation ends `captured`. Again, whatever the share: the reservation as it was
 * captured, with what was spent. After a release: 409 RESERVATION_STATE_CONFLICT; an operation
 * without a reservation: 404 NOT_FOUND.
 */
export async function capture(props: CaptureProps): Promise<CapturedReservation> {
  const { share } = props;
  if (share && !(Number.isSafeInteger(share.done) && Number.isSafeInteger(share.of) && share.done > 0 && share.done <= share.of)) {
    throw new RangeError(`a share must be a positive part of a whole, got ${share.done} of ${share.of}`);
  }
  return withTransaction(props.db, async (tx) => {
    const { orgId, mode, balance, reservation } = await lockedReservation(tx, props.operationId);
    if (reservation.state === 'captured') {
      const entries = await listLedgerEntriesOfOperation(tx, mode, props.operationId);
      return { ...reservation, captured: entries.find((entry) => entry.type === 'capture')!.amount };
    }
    requireReserved(reservation, 'captured');
    const spent = share ? Math.round((reservation.amount * share.done) / share.of) : reservation.amount;
    assertAmount(spent);
    const rest = reservation.amount - spent;
    const settled = await settleReservation(tx, mode, props.operationId, 'captured');
    const after = await setBalance(tx, mode, orgId, { available: balance.available + rest, reserved: balance.reserved - reservation.amount });
    const entry = systemEntry(orgId, props.operationId);
    const { description } = reservation;
    await insertLedgerEntry(tx, mode, {
      ...entry,
      type: 'capture',
      amount: spent,
      description: rest > 0 ? `${description} (part done)` : description,
      availableAfter: balance.available,
      reservedAfter: balance.reserved - spent,
    });
    if (rest > 0) {
      await insertLedgerEntry(tx, mode, {
        ...entry,
        type: 'release',
        amount: rest,
        description: `${description} (part not done)`,
        availableAfter: after.available,
        reservedAfter: after.reserved,
      });
    }
    return { ...settled!, captured: spent };
  });
}

/**
 * The operation failed: the reserved amount goes back to `available`. Again: the reservation
 * unchanged; after a capture: 409 RESERVATION_STATE_CONFLICT; without a reservation: 404 NOT_FOUND.
 */
export async function release(props: SettleProps): Promise<Reservation> {
  return withTransaction(props.db, async (tx) => {
    const { orgId, mode, balance, reservation } = await lockedReservation(tx, props.operationId);
    if (reservation.state === 'released') return reservation;
    requireReserved(reservation, 'released');
    const settled = await settleReservation(tx, mode, props.operationId, 'released');
    const after = await setBalance(tx, mode, orgId, { available: balance.available + reservation.amount, reserved: balance.reserved - reservation.amount });
    await insertLedgerEntry(tx, mode, {
      ...systemEntry(orgId, props.operationId),
      type: 'release',
      amount: reservation.amount,
      description: reservation.description,
      availableAfter: after.available,
      reservedAfter: after.reserved,
    });
    return settled!;
  });
}

/** An operation's reservation with its balance row locked, for settling it; 404 when it has none. */
async function lockedReservation(tx: pg.PoolClient, operationId: string): Promise<{ orgId: string; mode: Mode; balance: Balance; reservation: Reservation }> {
  const scope = await findReservationScope(tx, operationId);
  if (!scope) throw new NotFoundError(`Operation ${operationId} has no reservation`);
  const { orgId, mode } = scope;
  const balance = await lockBalance(tx, mode, orgId);
  const reservation = (await findReservation(tx, mode, operationId))!;
  return { orgId, mode, balance, reservation };
}

/** 409 RESERVATION_STATE_CONFLICT unless the reservation is still held: it settles once, one way. */
function requireReserved(reservation: Reservation, to: 'captured' | 'released'): void {
  if (reservation.state === 'reserved') return;
  throw new ConflictError(
    RESERVATION_STATE_CONFLICT,
    `The reservation of operation ${reservation.operationId} was already ${reservation.state}; it cannot be ${to}`,
  );
}
