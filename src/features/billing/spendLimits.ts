import { withTransaction, type Db } from '../../db/pool.js';
import { lockBalance, setMonthlySpendLimit } from './balances.repository.js';
import { auditCallerAction } from '../../audit/auditEvents.js';
import type { Principal } from '../../auth/principal.js';

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
  const mode = { livemode: props.principal.livemode };
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
