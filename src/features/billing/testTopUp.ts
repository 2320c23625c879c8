import type { Queryable } from '../../db/pool.js';
import { actorOf, auditCallerAction, type CallerOfRequest } from '../../audit/auditEvents.js';
import { derivedId } from '../../ids.js';
import { topUpWithin } from './ledger.js';
import type { LedgerEntry } from './transactions.repository.js';

export interface TestTopUpProps extends CallerOfRequest {
  orgId: string;
  /** Minor units, positive. */
  amount: number;
  /** The ledger entry's id when the request derives one (see topUpWithin). */
  entryId: string | undefined;
}

/**
 * Credits free test money at once, and audits it with the entry: a request run again finds its entry
 * and its audit entry (derived from the ledger entry's id) instead of writing either twice. In the
 * caller's transaction, which the route also stores its answer in (answerInTransaction).
 */
export async function testTopUpWithin(tx: Queryable, props: TestTopUpProps): Promise<LedgerEntry> {
  const entry = await topUpWithin(tx, {
    orgId: props.orgId,
    livemode: props.principal.livemode,
    amount: props.amount,
    actor: actorOf(props.principal),
    requestId: props.requestId,
    entryId: props.entryId,
  });
  await auditCallerAction(tx, props, {
    id: derivedId('evt', `top-up|${entry.id}`),
    action: 'billing.top_up',
    orgId: props.orgId,
    targetType: 'organization',
    targetId: props.orgId,
    data: { amount: entry.amount, ledger_entry_id: entry.id },
  });
  return entry;
}
