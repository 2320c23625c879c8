import type { Queryable } from '../../db/pool.js';
import { ModeScopedTable, type Mode } from '../../db/modeScope.js';
import { minorUnits, type Currency } from '../../db/money.js';
import { newId } from '../../ids.js';
import type { PageRequest } from '../../db/keyset.js';
import { ValidationError } from '../../errors.js';
import { recordLedgerEntry } from '../../metrics/record.js';

export type LedgerEntryType = 'top_up' | 'reservation' | 'capture' | 'release';

/** One movement of money. Entries are never changed or removed (the table refuses it). */
export interface LedgerEntry {
  id: string;
  orgId: string;
  livemode: boolean;
  type: LedgerEntryType;
  /** Always positive; `type` says which way it moved. */
  amount: number;
  currency: Currency;
  operationId: string | null;
  description: string;
  /** The balance right after this entry. */
  availableAfter: number;
  reservedAfter: number;
  actorUserId: string | null;
  actorKeyId: string | null;
  requestId: string | null;
  createdAt: Date;
}

type LedgerRow = Omit<LedgerEntry, 'amount' | 'availableAfter' | 'reservedAfter'> & {
  amount: string;
  availableAfter: string;
  reservedAfter: string;
};

const entries = new ModeScopedTable<LedgerRow>(
  'billing_transactions',
  `id, org_id AS "orgId", livemode, type, amount, currency, operation_id AS "operationId", description,
   available_after AS "availableAfter", reserved_after AS "reservedAfter", actor_user_id AS "actorUserId",
   actor_key_id AS "actorKeyId", request_id AS "requestId", created_at AS "createdAt"`,
);
/** Posting positions, for turning a page cursor (an entry id) into where the next page starts. */
const positions = new ModeScopedTable<{ seq: string }>('billing_transactions', 'seq');

function toLedgerEntry(row: LedgerRow): LedgerEntry {
  return {
    ...row,
    amount: minorUnits(row.amount),
    availableAfter: minorUnits(row.availableAfter),
    reservedAfter: minorUnits(row.reservedAfter),
  };
}

/** One entry of the organisation, by id. */
export async function findLedgerEntry(db: Queryable, mode: Mode, props: { orgId: string; id: string }): Promise<LedgerEntry | undefined> {
  const row = await entries.findOne(db, mode, 'org_id = $2 AND id = $3', [props.orgId, props.id]);
  return row && toLedgerEntry(row);
}

/** Appends an entry; call it under the balance's lock, with the balance as it is after the movement. */
export async function insertLedgerEntry(
  tx: Queryable,
  mode: Mode,
  entry: Pick<
    LedgerEntry,
    'orgId' | 'type' | 'amount' | 'operationId' | 'description' | 'availableAfter' | 'reservedAfter' | 'actorUserId' | 'actorKeyId' | 'requestId'
  > & { id?: string | undefined },
): Promise<LedgerEntry> {
  const row = await entries.insert(tx, mode, {
    id: entry.id ?? newId('txn'),
    org_id: entry.orgId,
    type: entry.type,
    amount: entry.amount,
    operation_id: entry.operationId,
    description: entry.description,
    available_after: entry.availableAfter,
    reserved_after: entry.reservedAfter,
    actor_user_id: entry.actorUserId,
    actor_key_id: entry.actorKeyId,
    request_id: entry.requestId,
  });
  recordLedgerEntry(entry.type, mode, entry.amount);
  return toLedgerEntry(row);
}

/**
 * An organisation's entries in one mode, newest first in posting order (not clock order: entries
 * posted within the same millisecond keep their true order). The cursor names the last entry seen.
 */
export async function listLedgerEntries(
  db: Queryable,
  mode: Mode,
  props: { orgId: string } & PageRequest,
): Promise<LedgerEntry[]> {
  let before: string | null = null;
  if (props.after) {
    const position = await positions.findOne(db, mode, 'org_id = $2 AND id = $3', [props.orgId, props.after.id]);
    if (!position) throw new ValidationError([{ loc: ['query', 'cursor'], msg: 'Invalid cursor', type: 'invalid_cursor' }]);
    before = position.seq;
  }
  const rows = await entries.select(
    db,
    mode,
    'org_id = $2 AND ($3::bigint IS NULL OR seq < $3::bigint)',
    [props.orgId, before, props.limit + 1],
    'ORDER BY seq DESC LIMIT $4',
  );
  return rows.map(toLedgerEntry);
}

/** Every entry of one operation, in posting order. */
export async function listLedgerEntriesOfOperation(db: Queryable, mode: Mode, operationId: string): Promise<LedgerEntry[]> {
  const rows = await entries.select(db, mode, 'operation_id = $2', [operationId], 'ORDER BY seq');
  return rows.map(toLedgerEntry);
}
