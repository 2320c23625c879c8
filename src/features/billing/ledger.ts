import type pg from 'pg';
import { withTransaction, type Db, type Queryable } from '../../db/pool.js';
import type { Mode } from '../../db/modeScope.js';
import { lockBalance, setBalance, type Balance } from './balances.repository.js';
import {
  findReservation,
  findReservationScope,
  insertReservation,
  monthSpendingOfKeyLineages,
  reserveFromUnlimitedBalance,
  monthSpendingOfOrg,
  settleReservation,
  type Reservation,
} from './reservations.repository.js';
import { findLedgerEntry, insertLedgerEntry, type LedgerEntry } from './transactions.repository.js';
import type { AuditEvent } from '../../audit/auditEvents.js';
import { ConflictError, InsufficientFundsError, NotFoundError, SpendLimitReachedError } from '../../errors.js';
import { lockApiKeyLineage, type KeyLineageLimits } from '../../auth/apiKeys.js';
import { newId } from '../../ids.js';
import { recordLedgerEntry } from '../../metrics/record.js';

/**
 * The billing ledger. Every movement locks the balance row of its (organisation, mode) first, so
 * concurrent movements of one balance run one after another and a balance can never go negative
 * (the table's CHECK constraints are the backstop). Reserve, capture and release are keyed by the
 * operation id: a retry of any of them can never charge or release twice.
 *
 * These take plain props, no request context: Temporal activities call them.
 */

/** A second reserve for an operation id with another amount (or organisation, or mode). 409. */
export const RESERVATION_MISMATCH = 'RESERVATION_MISMATCH';
/** Capture of a released reservation, release of a captured one, or reserving a settled one again. 409. */
export const RESERVATION_STATE_CONFLICT = 'RESERVATION_STATE_CONFLICT';

/** Who moved money, for the ledger entry: a caller's user and key (see actorOf), or nobody (the system). */
export type LedgerActor = Pick<AuditEvent, 'actorUserId' | 'actorKeyId'>;

export function assertAmount(amount: number): void {
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
  const mode: Mode = { livemode: props.livemode };
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

export interface ReserveProps {
  db: Db;
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

/**
 * Moves `amount` from `available` to `reserved` for an operation. Throws 402 INSUFFICIENT_FUNDS when
 * `available` is short (nothing changes). Reserving an operation id again returns its existing
 * reservation while it is still `reserved`, without reserving again; once it was captured or released
 * it is 409 RESERVATION_STATE_CONFLICT (a settled hold is never handed to a new request), and with
 * another amount, organisation or mode 409 RESERVATION_MISMATCH.
 */
export async function reserve(props: ReserveProps): Promise<Reservation> {
  return withTransaction(props.db, (tx) => reserveWithin(tx, props));
}

/**
 * Takes the locks a reservation takes, in its order (the key lineage's, then the balance row's), ahead
 * of the rest of the caller's transaction: for a transaction that writes other rows before it reserves,
 * so it takes its locks in the order a reservation written in one statement with those rows does
 * (src/features/domains/reservedOperation.repository.ts) and the two never wait on each other in a circle.
 */
export async function lockForReservation(tx: pg.PoolClient, props: { orgId: string; livemode: boolean; apiKeyId?: string | undefined }): Promise<void> {
  if (props.apiKeyId) await lockApiKeyLineage(tx, props.apiKeyId);
  await lockBalance(tx, { livemode: props.livemode }, props.orgId);
}

/**
 * The same as reserve, inside the caller's transaction, so the reservation commits (or rolls back)
 * together with the rows of the operation it pays for. The balance row stays locked until then.
 */
export async function reserveWithin(tx: pg.PoolClient, props: Omit<ReserveProps, 'db'>): Promise<Reservation> {
  assertAmount(props.amount);
  const mode: Mode = { livemode: props.livemode };
  const mismatch = () =>
    new ConflictError(
      RESERVATION_MISMATCH,
      `Operation ${props.operationId} already has a reservation that differs from this one (amount ${props.amount})`,
    );
  // Lock first, then look: a concurrent reserve of the same operation is seen once it commits.
  // Always the key's lock before the balance row's, so two reservations never wait on each other in a circle.
  const apiKeyId = props.apiKeyId ?? null;
  const lineage = apiKeyId ? await lockApiKeyLineage(tx, apiKeyId) : undefined;
  const balance = await lockBalance(tx, mode, props.orgId);
  const existing = await findReservation(tx, mode, props.operationId);
  if (existing) {
    if (existing.orgId !== props.orgId || existing.amount !== props.amount) throw mismatch();
    if (existing.state !== 'reserved') {
      throw new ConflictError(
        RESERVATION_STATE_CONFLICT,
        `The reservation of operation ${props.operationId} was already ${existing.state}; it cannot be reserved again`,
      );
    }
    return existing;
  }
  if (balance.available < props.amount) throw new InsufficientFundsError(balance.available, props.amount, balance.currency);
  await enforceMonthlyLimits(tx, { balance, mode, orgId: props.orgId, apiKeyId, lineage, amount: props.amount });
  const after = await setBalance(tx, mode, props.orgId, {
    available: balance.available - props.amount,
    reserved: balance.reserved + props.amount,
  });
  // Absent here but present there: the operation id belongs to the other mode.
  const reservation = await insertReservation(tx, mode, { ...props, apiKeyId });
  if (!reservation) throw mismatch();
  await insertLedgerEntry(tx, mode, {
    orgId: props.orgId,
    type: 'reservation',
    amount: props.amount,
    operationId: props.operationId,
    description: props.description,
    availableAfter: after.available,
    reservedAfter: after.reserved,
    actorUserId: null,
    actorKeyId: null,
    requestId: null,
  });
  return reservation;
}

/**
 * reserveWithin for an operation whose row the caller's transaction has just written, so nothing can
 * have reserved for it before. Without a monthly limit on the key's lineage or the balance, and with
 * the funds there, it costs one statement that takes the lineage's lock and reserves
 * (reserveFromUnlimitedBalance); otherwise it is reserveWithin, with its answers (402, limits). Used
 * by beginOperation, whose 202 waits on every round trip (docs/bench.md).
 */
export async function reserveForNewOperation(tx: pg.PoolClient, props: Omit<ReserveProps, 'db'>): Promise<void> {
  assertAmount(props.amount);
  const apiKeyId = props.apiKeyId ?? null;
  const mode: Mode = { livemode: props.livemode };
  const ledgerEntryId = newId('txn');
  // Takes the key lineage's lock as reserveWithin does (the key's lock before the balance row's).
  const result = await reserveFromUnlimitedBalance(tx, mode, { ...props, apiKeyId, ledgerEntryId });
  if (result.reserved) {
    recordLedgerEntry('reservation', mode, props.amount);
    return;
  }
  if (result.balanceMoved) {
    throw new ConflictError(RESERVATION_MISMATCH, `Operation ${props.operationId} already has a reservation (amount ${props.amount})`);
  }
  await reserveWithin(tx, props);
}

/**
 * 402 SPEND_LIMIT_REACHED when this reservation would take the month's spending past the
 * organisation's limit for this mode, or past the limit of the asking key or of any key above it in
 * its lineage (whose budget every key below it shares, deleted ones included). Runs under the
 * balance row's lock and the lineage's, so concurrent reservations are counted one after another and
 * cannot overshoot together.
 */
async function enforceMonthlyLimits(
  tx: pg.PoolClient,
  props: { balance: Balance; mode: Mode; orgId: string; apiKeyId: string | null; lineage: KeyLineageLimits | undefined; amount: number },
): Promise<void> {
  const orgLimit = props.balance.monthlySpendLimit;
  if (orgLimit !== null) {
    const spent = await monthSpendingOfOrg(tx, props.mode, props.orgId);
    if (spent + props.amount > orgLimit) {
      const limit = `The organisation's ${props.mode.livemode ? 'live' : 'test'}-mode monthly spend limit`;
      throw new SpendLimitReachedError({ limit, monthlyLimit: orgLimit, spent, amount: props.amount });
    }
  }
  const limits = props.lineage?.limits ?? [];
  if (limits.length === 0) return;
  const spentBelow = await monthSpendingOfKeyLineages(tx, props.lineage!.rootKeyId, limits.map((l) => l.keyId));
  for (const { keyId, limit: monthlyLimit } of limits) {
    const spent = spentBelow.get(keyId) ?? 0;
    if (spent + props.amount > monthlyLimit) {
      const shared = keyId === props.apiKeyId ? '' : ' (shared by the keys created with it)';
      const limit = `API key ${keyId}'s monthly spend limit${shared}`;
      throw new SpendLimitReachedError({ limit, monthlyLimit, spent, amount: props.amount });
    }
  }
}

export interface SettleProps {
  db: Db;
  operationId: string;
}

/** The operation succeeded: the reserved amount is spent (`reserved` goes down). Again: no-op. */
export async function capture(props: SettleProps): Promise<Reservation> {
  return settle(props, 'captured');
}

/** The operation failed: the reserved amount goes back to `available`. Again: no-op. */
export async function release(props: SettleProps): Promise<Reservation> {
  return settle(props, 'released');
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

/**
 * Capture after capture and release after release return the reservation unchanged; capture after
 * release and release after capture are 409 RESERVATION_STATE_CONFLICT; an operation without a
 * reservation is 404 NOT_FOUND.
 */
async function settle(props: SettleProps, to: 'captured' | 'released'): Promise<Reservation> {
  return withTransaction(props.db, async (tx) => {
    const { orgId, mode, balance, reservation } = await lockedReservation(tx, props.operationId);
    if (reservation.state === to) return reservation;
    if (reservation.state !== 'reserved') {
      throw new ConflictError(
        RESERVATION_STATE_CONFLICT,
        `The reservation of operation ${props.operationId} was already ${reservation.state}; it cannot be ${to}`,
      );
    }
    const settled = await settleReservation(tx, mode, props.operationId, to);
    const after = await setBalance(tx, mode, orgId, moved(balance, reservation.amount, to));
    await insertLedgerEntry(tx, mode, {
      orgId,
      type: to === 'captured' ? 'capture' : 'release',
      amount: reservation.amount,
      operationId: props.operationId,
      description: reservation.description,
      availableAfter: after.available,
      reservedAfter: after.reserved,
      actorUserId: null,
      actorKeyId: null,
      requestId: null,
    });
    return settled!;
  });
}

function moved(balance: Balance, amount: number, to: 'captured' | 'released'): { available: number; reserved: number } {
  return to === 'captured'
    ? { available: balance.available, reserved: balance.reserved - amount }
    : { available: balance.available + amount, reserved: balance.reserved - amount };
}

export interface CaptureInPartProps extends SettleProps {
  /** Minor units to keep, positive and below the reserved amount; the rest goes back to `available`. */
  amount: number;
}

/**
 * The operation did part of what was paid for (registered for one year of several): `amount` is
 * spent and the rest released, in one transaction with a ledger entry for each. The reservation
 * ends `captured`. Again (or after any capture): no-op; after a release: 409 RESERVATION_STATE_CONFLICT.
 */
export async function captureInPart(props: CaptureInPartProps): Promise<Reservation> {
  assertAmount(props.amount);
  return withTransaction(props.db, async (tx) => {
    const { orgId, mode, balance, reservation } = await lockedReservation(tx, props.operationId);
    if (reservation.state === 'captured') return reservation;
    if (reservation.state !== 'reserved') {
      throw new ConflictError(RESERVATION_STATE_CONFLICT, `The reservation of operation ${props.operationId} was already ${reservation.state}`);
    }
    if (props.amount >= reservation.amount) throw new RangeError('a part must be less than the reserved amount');
    const settled = await settleReservation(tx, mode, props.operationId, 'captured');
    const rest = reservation.amount - props.amount;
    const after = await setBalance(tx, mode, orgId, { available: balance.available + rest, reserved: balance.reserved - reservation.amount });
    const entry = { orgId, operationId: props.operationId, actorUserId: null, actorKeyId: null, requestId: null };
    await insertLedgerEntry(tx, mode, {
      ...entry,
      type: 'capture',
      amount: props.amount,
      description: `${reservation.description} (part done)`,
      availableAfter: balance.available,
      reservedAfter: balance.reserved - props.amount,
    });
    await insertLedgerEntry(tx, mode, {
      ...entry,
      type: 'release',
      amount: rest,
      description: `${reservation.description} (part not done)`,
      availableAfter: after.available,
      reservedAfter: after.reserved,
    });
    return settled!;
  });
}
