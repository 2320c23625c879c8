import type pg from 'pg';
import { withTransaction, type Db } from '../../db/pool.js';
import { type Mode, modeOf } from '../../db/modeScope.js';
import { lockBalance, setMonthlySpendLimit, type Balance } from './balances.repository.js';
import { monthSpendingOfKeyLineages, monthSpendingOfOrg } from './reservations.repository.js';
import { auditCallerAction } from '../../audit/auditEvents.js';
import type { Principal } from '../../auth/principal.js';
import type { KeyLineageLimits } from '../../auth/apiKeys.js';
import { SpendLimitReachedError } from './errors.js';

export interface SetOrgSpendLimitProps {
  db: Db;
  principal: Principal;
  orgId: string;
  /** Minor units; null removes the limit. Applies to the caller's mode only. */
  limit: number | null;
  requestId: string;
}

/**
 * Sets the organisation's monthly spending limit for the caller's mode. It lives on the balance row,
 * which every reservation locks, so a change applies from the next reservation on; one audit event.
 */
export async function setOrgSpendLimit(props: SetOrgSpendLimitProps): Promise<number | null> {
  const mode = modeOf(props.principal.livemode);
  return withTransaction(props.db, async (tx) => {
    const before = await lockBalance(tx, mode, props.orgId);
    const after = await setMonthlySpendLimit(tx, mode, props.orgId, props.limit);
    await auditCallerAction(tx, props, {
      action: 'billing.spend_limit_changed',
      orgId: props.orgId,
      targetType: 'organization',
      targetId: props.orgId,
      data: { livemode: mode.livemode, from: before.monthlySpendLimit, to: after.monthlySpendLimit },
    });
    return after.monthlySpendLimit;
  });
}

/**
 * 402 SPEND_LIMIT_REACHED when this reservation would take the month's spending past the
 * organisation's limit for this mode, or past the limit of the asking key or of any key above it in
 * its lineage (whose budget every key below it shares, deleted ones included). Runs under the
 * balance row's lock and the lineage's, so concurrent reservations are counted one after another and
 * cannot overshoot together.
 */
export async function enforceMonthlyLimits(
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
