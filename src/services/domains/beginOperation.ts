import type pg from 'pg';
import type { AppDeps } from '../../deps.js';
import { withTransaction } from '../../db/pool.js';
import {
  abandonPendingOperation,
  findOperationByWorkflowId,
  insertOperation,
  WORKFLOW_INPUT_PURPOSE,
  type Operation,
  type OperationType,
} from '../../db/repositories/operations.js';
import { sealJson } from '../../db/sealedJson.js';
import { updateDomain } from '../../db/repositories/domains.js';
import { ConflictError, ServiceUnavailableError } from '../../errors.js';
import { derivedId } from '../../ids.js';
import { release, reserve } from '../billing/ledger.js';
import { startOperationWorkflow } from './operationWorkflows.js';

export interface BeginOperationProps<Input> {
  deps: Pick<AppDeps, 'db' | 'temporal' | 'config' | 'payloadKeys'>;
  livemode: boolean;
  orgId: string;
  type: OperationType;
  workflowId: string;
  domainName: string;
  amount: number;
  description: string;
  /** Writes the domain rows in the operation's transaction; returns the domain's id. */
  writeDomain: (tx: pg.PoolClient, ids: { operationId: string; domainId: string }) => Promise<string>;
  workflowInput: (ids: { operationId: string; domainId: string }) => Input;
}

/**
 * The shared start of every paid domain operation: the price is reserved first (402 leaves nothing
 * behind), then the domain and operation rows are written in one transaction, then the workflow is
 * started. Ids derive from the workflow id, which derives from the Idempotency-Key: a retry, a
 * concurrent twin or a retry after a crash all end at the same operation and one charge.
 */
export async function beginOperation<Input>(props: BeginOperationProps<Input>): Promise<Operation> {
  const { deps } = props;
  const mode = { livemode: props.livemode };
  const seed = `${props.livemode ? 'live' : 'test'}|${props.workflowId}`;
  const ids = { operationId: derivedId('op', seed), domainId: derivedId('dom', seed) };
  await reserve({ db: deps.db, orgId: props.orgId, livemode: props.livemode, operationId: ids.operationId, amount: props.amount, description: props.description });
  let operation: Operation;
  try {
    operation = await withTransaction(deps.db, async (tx) => {
      const domainId = await props.writeDomain(tx, ids);
      return insertOperation(tx, mode, {
        id: ids.operationId,
        orgId: props.orgId,
        type: props.type,
        domain: props.domainName,
        domainId,
        workflowId: props.workflowId,
        workflowInput: sealJson(deps.payloadKeys, WORKFLOW_INPUT_PURPOSE, props.workflowInput({ ...ids, domainId })),
        amount: props.amount,
      });
    });
  } catch (err) {
    const twin = await findOperationByWorkflowId(deps.db, mode, props.workflowId);
    if (twin) {
      await startOperationWorkflow(deps, twin);
      return twin;
    }
    // Nothing was written: give the money back.
    await release({ db: deps.db, operationId: ids.operationId });
    if ((err as { code?: string }).code === '23505') {
      throw new ConflictError('DOMAIN_NOT_AVAILABLE', `${props.domainName} is held by another organisation`);
    }
    throw err;
  }
  try {
    await startOperationWorkflow(deps, operation);
  } catch (err) {
    return abandonUnstarted(deps, mode, operation, err);
  }
  return operation;
}

/**
 * The workflow could not be started (Temporal unreachable, or no answer). If no workflow has taken
 * the operation, it is marked failed and its reservation released, and the caller gets a 503 that
 * says nothing was charged. If one already has (the start went through after all), the work goes on.
 */
async function abandonUnstarted(
  deps: BeginOperationProps<unknown>['deps'],
  mode: { livemode: boolean },
  operation: Operation,
  cause: unknown,
): Promise<Operation> {
  const detail = 'The work could not be started and nothing was charged; retry with a new Idempotency-Key';
  const abandoned = await abandonPendingOperation(deps.db, mode, operation.id, { code: 'WORKFLOW_ENGINE_UNAVAILABLE', detail });
  if (!abandoned) return (await findOperationByWorkflowId(deps.db, mode, operation.workflowId)) ?? operation;
  await release({ db: deps.db, operationId: operation.id });
  // A new domain row (register, transfer) no longer holds the name; a renewed domain stays as it was.
  if (operation.type !== 'domain.renew' && operation.domainId) await updateDomain(deps.db, mode, operation.domainId, { status: 'failed' });
  const error = new ServiceUnavailableError('WORKFLOW_ENGINE_UNAVAILABLE', detail, 5);
  error.cause = cause;
  throw error;
}

/** A retried request: the operation it started before, with its workflow (re)started idempotently. */
export async function existingOperation(deps: BeginOperationProps<unknown>['deps'], livemode: boolean, workflowId: string): Promise<Operation | undefined> {
  const existing = await findOperationByWorkflowId(deps.db, { livemode }, workflowId);
  // Only a pending operation may still lack its workflow; a finished one is just answered again.
  if (existing?.status === 'pending') await startOperationWorkflow(deps, existing);
  return existing;
}
