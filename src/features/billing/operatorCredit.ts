import { withTransaction, type Db } from '../../db/pool.js';
import { insertAuditEvent } from '../../audit/auditEvents.js';
import { findOrganization } from '../../auth/organizations.js';
import type { LedgerEntry } from './transactions.repository.js';
import { NotFoundError } from '../../errors.js';
import { topUpWithin } from './ledger.js';

export interface OperatorCreditProps {
  db: Db;
  orgId: string;
  /** The live balance unless false; the live balance can be credited only this way (or by a payment). */
  livemode: boolean;
  /** Minor units, positive. */
  amount: number;
  /** Why the money is credited (a bank transfer's reference, a goodwill credit); kept on the entry and the audit event. */
  reason: string;
  /** Who ran the command: shown in the audit event. */
  operator: string;
}

/**
 * Credits a balance on an operator's word (src/cli/billingCredit.ts): the ledger entry and an audit
 * event naming the operator and the reason are written in one transaction, so money never appears
 * without a record of who put it there and why.
 */
export async function creditByOperator(props: OperatorCreditProps): Promise<{ entry: LedgerEntry; auditEventId: string }> {
  return withTransaction(props.db, async (tx) => {
    if (!(await findOrganization(tx, props.orgId))) throw new NotFoundError(`No organisation with id ${props.orgId}`);
    const entry = await topUpWithin(tx, {
      orgId: props.orgId,
      livemode: props.livemode,
      amount: props.amount,
      actor: { actorUserId: null, actorKeyId: null },
      requestId: null,
      description: `Operator credit: ${props.reason}`,
    });
    const auditEventId = await insertAuditEvent(tx, {
      action: 'billing.operator_credit',
      actorUserId: null,
      actorKeyId: null,
      orgId: props.orgId,
      targetType: 'organization',
      targetId: props.orgId,
      livemode: props.livemode,
      data: { operator: props.operator, reason: props.reason, amount: props.amount, livemode: props.livemode, ledger_entry_id: entry.id },
      requestId: null,
    });
    return { entry, auditEventId };
  });
}
