import type { Queryable } from '../../db/pool.js';
import { ModeScopedTable, type Mode } from '../../db/modeScope.js';
import { CURRENCY, minorUnits, type Currency } from '../../db/money.js';

/** One organisation's money in one mode, in minor units. */
export interface Balance {
  orgId: string;
  livemode: boolean;
  currency: Currency;
  /** Spendable now. */
  available: number;
  /** Held for operations in progress. */
  reserved: number;
  /** The most this mode's reservations may add up to in a calendar month (UTC); null: no limit. */
  monthlySpendLimit: number | null;
}

interface BalanceRow {
  orgId: string;
  livemode: boolean;
  currency: Currency;
  available: string;
  reserved: string;
  monthlySpendLimit: string | null;
}

const balances = new ModeScopedTable<BalanceRow>(
  'billing_balances',
  'org_id AS "orgId", livemode, currency, available, reserved, monthly_spend_limit AS "monthlySpendLimit"',
);

function toBalance(row: BalanceRow): Balance {
  return {
    ...row,
    available: minorUnits(row.available),
    reserved: minorUnits(row.reserved),
    monthlySpendLimit: row.monthlySpendLimit === null ? null : minorUnits(row.monthlySpendLimit),
  };
}

/** The balance; an organisation that never had money in this mode has 0 available and 0 reserved. */
export async function findBalance(db: Queryable, mode: Mode, orgId: string): Promise<Balance> {
  const row = await balances.findOne(db, mode, 'org_id = $2', [orgId]);
  return row ? toBalance(row) : { orgId, livemode: mode.livemode, currency: CURRENCY, available: 0, reserved: 0, monthlySpendLimit: null };
}

/**
 * Locks the balance row (`FOR UPDATE`) until the transaction ends, creating it at zero first when it
 * does not exist. Every change to a balance, its reservations and its ledger happens under this lock.
 */
export async function lockBalance(tx: Queryable, mode: Mode, orgId: string): Promise<Balance> {
  const [existing] = await balances.select(tx, mode, 'org_id = $2', [orgId], 'FOR UPDATE');
  if (existing) return toBalance(existing);
  await balances.insertIfAbsent(tx, mode, { org_id: orgId });
  const [created] = await balances.select(tx, mode, 'org_id = $2', [orgId], 'FOR UPDATE');
  return toBalance(created!);
}

/** Writes new amounts to a balance locked by lockBalance; the CHECK constraints refuse a negative one. */
export async function setBalance(
  tx: Queryable,
  mode: Mode,
  orgId: string,
  amounts: { available: number; reserved: number },
): Promise<Balance> {
  const [row] = await balances.update(tx, mode, 'org_id = $2', [orgId], { ...amounts, updated_at: new Date() });
  return toBalance(row!);
}

/** Sets (or, with null, removes) the monthly spending limit of a balance locked by lockBalance. */
export async function setMonthlySpendLimit(tx: Queryable, mode: Mode, orgId: string, limit: number | null): Promise<Balance> {
  const [row] = await balances.update(tx, mode, 'org_id = $2', [orgId], { monthly_spend_limit: limit, updated_at: new Date() });
  return toBalance(row!);
}
