import type pg from 'pg';
import { withTransaction, type Db, type Queryable } from '../../db/pool.js';
import type { Mode } from '../../db/modeScope.js';
import { updateOperation, type Operation } from './operations.repository.js';
import { presentOperation } from './operation.presenter.js';
import { emitEvent } from '../webhooks/index.js';

export type OperationEnding = {
  status: 'succeeded' | 'failed' | 'cancelled';
  result?: Record<string, unknown>;
  error?: { code: string; detail: string };
};

/**
 * `operation.succeeded|failed|cancelled` for an operation that has just ended, in the caller's
 * transaction. The id derives from the operation, so an operation has one ending event whatever retries.
 */
export async function emitOperationEnded(db: Queryable, operation: Operation): Promise<void> {
  if (operation.status !== 'succeeded' && operation.status !== 'failed' && operation.status !== 'cancelled') return;
  await emitEvent({
    db,
    orgId: operation.orgId,
    livemode: operation.livemode,
    type: `operation.${operation.status}`,
    object: presentOperation(operation),
    dedupeSeed: `operation-ended|${operation.id}`,
  });
}

/**
 * Ends an operation (the one way activities do it) and emits its event in the same transaction;
 * `alongside` writes what changes with it (the domain row), `onEnded` what follows from this call
 * having ended it (another event). An operation that had already ended is left as it was and emits
 * nothing: undefined.
 */
export async function endOperation(props: {
  db: Db;
  mode: Mode;
  operationId: string;
  ending: OperationEnding;
  alongside?: (tx: pg.PoolClient) => Promise<void>;
  onEnded?: (tx: pg.PoolClient, ended: Operation) => Promise<void>;
}): Promise<Operation | undefined> {
  return withTransaction(props.db, async (tx) => {
    await props.alongside?.(tx);
    const ended = await updateOperation(tx, props.mode, props.operationId, props.ending);
    if (ended) {
      await emitOperationEnded(tx, ended);
      await props.onEnded?.(tx, ended);
    }
    return ended;
  });
}
