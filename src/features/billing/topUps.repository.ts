import type { Queryable } from '../../db/pool.js';
import { ModeScopedTable, modeScopedParams, type Mode, modeOf } from '../../db/modeScope.js';
import { minorUnits, type Currency } from '../../db/money.js';
import { keyset, type PageRequest } from '../../db/keyset.js';

export type TopUpStatus = 'pending' | 'succeeded' | 'failed' | 'expired';

/** A live top-up paid through Stripe Checkout. */
export interface TopUp {
  id: string;
  orgId: string;
  livemode: boolean;
  amount: number;
  currency: Currency;
  status: TopUpStatus;
  stripeSessionId: string | null;
  checkoutUrl: string | null;
  ledgerEntryId: string | null;
  actorUserId: string | null;
  actorKeyId: string | null;
  createdAt: Date;
  completedAt: Date | null;
}

type TopUpRow = Omit<TopUp, 'amount'> & { amount: string };

const topUps = new ModeScopedTable<TopUpRow>(
  'billing_top_ups',
  `id, org_id AS "orgId", livemode, amount, currency, status, stripe_session_id AS "stripeSessionId",
   checkout_url AS "checkoutUrl", ledger_entry_id AS "ledgerEntryId", actor_user_id AS "actorUserId",
   actor_key_id AS "actorKeyId", created_at AS "createdAt", completed_at AS "completedAt"`,
);

const toTopUp = (row: TopUpRow): TopUp => ({ ...row, amount: minorUnits(row.amount) });

export async function insertTopUp(
  db: Queryable,
  mode: Mode,
  props: { id: string; orgId: string; amount: number; actorUserId: string | null; actorKeyId: string | null },
): Promise<TopUp> {
  const row = await topUps.insert(db, mode, {
    id: props.id,
    org_id: props.orgId,
    amount: props.amount,
    actor_user_id: props.actorUserId,
    actor_key_id: props.actorKeyId,
  });
  return toTopUp(row);
}

export async function findTopUp(db: Queryable, mode: Mode, orgId: string, id: string): Promise<TopUp | undefined> {
  const row = await topUps.findOne(db, mode, 'org_id = $2 AND id = $3', [orgId, id]);
  return row && toTopUp(row);
}

/**
 * The top-up a Stripe event names, locked until the transaction ends, found by its id alone: events
 * carry the id we gave the session, not a caller's mode. Every write after it uses the row's own mode.
 */
export async function lockTopUpForPayment(tx: Queryable, id: string): Promise<TopUp | undefined> {
  const { rows } = await tx.query<{ livemode: boolean }>('SELECT livemode FROM billing_top_ups WHERE id = $1', [id]);
  if (!rows[0]) return undefined;
  const [row] = await topUps.select(tx, modeOf(rows[0].livemode), 'id = $2', [id], 'FOR UPDATE');
  return row && toTopUp(row);
}

export async function updateTopUp(
  db: Queryable,
  mode: Mode,
  id: string,
  changes: { status?: TopUpStatus; stripeSessionId?: string; checkoutUrl?: string | null; ledgerEntryId?: string; completedAt?: Date },
): Promise<TopUp> {
  const values: Record<string, unknown> = { updated_at: new Date() };
  if (changes.status !== undefined) values.status = changes.status;
  if (changes.stripeSessionId !== undefined) values.stripe_session_id = changes.stripeSessionId;
  if (changes.checkoutUrl !== undefined) values.checkout_url = changes.checkoutUrl;
  if (changes.ledgerEntryId !== undefined) values.ledger_entry_id = changes.ledgerEntryId;
  if (changes.completedAt !== undefined) values.completed_at = changes.completedAt;
  const [row] = await topUps.update(db, mode, 'id = $2', [id], values);
  return toTopUp(row!);
}

/** Newest first, by keyset on (created_at, id). */
export async function listTopUps(db: Queryable, mode: Mode, props: { orgId: string } & PageRequest): Promise<TopUp[]> {
  const p = modeScopedParams();
  const page = keyset(p, { time: 'created_at', id: 'id' }, props);
  const rows = await topUps.select(db, mode, `org_id = ${p.add(props.orgId)} AND ${page.condition}`, p.values, page.tail);
  return rows.map(toTopUp);
}
