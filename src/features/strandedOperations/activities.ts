import { WorkflowNotFoundError } from '@temporalio/client';
import type { Config } from '../../config.js';
import type { Db } from '../../db/pool.js';
import type { Logger } from '../../logger.js';
import type { PayloadKeyring } from '../../temporal/payloadKeys.js';
import type { Temporal } from '../../temporal/client.js';
import { insertAuditEvent } from '../../audit/auditEvents.js';
import { findReservation, listReservedOfFinishedOperations, release } from '../billing/index.js';
import { listStalePendingOperations, type Operation, abandonOperation, startOperationWorkflow } from '../domains/index.js';
import { derivedId } from '../../ids.js';
import type { ReconcileOperationsInput, ReconcileOperationsSummary } from './strandedOperations.contract.js';
import { modeOf } from '../../db/modeScope.js';

export interface ReconcilerActivityDeps {
  config: Config;
  db: Db;
  logger: Logger;
  temporal: Temporal;
  payloadKeys: PayloadKeyring;
}

async function workflowExists(temporal: Temporal, workflowId: string): Promise<boolean> {
  try {
    await temporal.client.workflow.getHandle(workflowId).describe();
    return true;
  } catch (err) {
    if (err instanceof WorkflowNotFoundError) return false;
    throw err;
  }
}

/**
 * Sweeps what an api killed between writing an operation and starting its workflow leaves behind:
 * a `pending` operation with money reserved and no workflow. A recent one gets its workflow started
 * with the stored input (the derived workflow id makes that idempotent); an old one, or one whose
 * reservation is not held, is abandoned with the reservation released. A free operation (DNSSEC,
 * amount 0) reserves nothing, so only its age decides. Every step is conditional on
 * the row's state, so two runs, or a run racing the api, do each thing once.
 */
export function createStrandedOperationActivities(deps: ReconcilerActivityDeps) {
  const { db, logger } = deps;

  async function abandon(operation: Operation, reason: string): Promise<boolean> {
    const abandoned = await abandonOperation(deps, operation, {
      code: 'OPERATION_ABANDONED',
      detail: 'The work was never started and nothing was charged; retry with a new Idempotency-Key',
    });
    if (abandoned) {
      await insertAuditEvent(db, {
        id: derivedId('evt', `abandoned|${operation.id}`),
        action: 'operation.abandoned',
        actorUserId: null,
        actorKeyId: null,
        orgId: operation.orgId,
        targetType: 'operation',
        targetId: operation.id,
        livemode: operation.livemode,
        data: { reason, workflowId: operation.workflowId },
        requestId: null,
      });
    }
    return abandoned;
  }

  return {
    async reconcilePendingOperations(input: ReconcileOperationsInput): Promise<ReconcileOperationsSummary> {
      const summary: ReconcileOperationsSummary = { examined: 0, hasWorkflow: [], started: [], abandoned: [], released: [] };
      const stale = await listStalePendingOperations(db, { graceMs: input.graceMs, limit: input.limit });
      summary.examined = stale.length;
      for (const operation of stale) {
        if (await workflowExists(deps.temporal, operation.workflowId)) {
          summary.hasWorkflow.push(operation.id);
          continue;
        }
        const reservation = await findReservation(db, modeOf(operation.livemode), operation.id);
        const tooOld = Date.now() - operation.createdAt.getTime() > input.maxStartAgeMs;
        const held = operation.amount === 0 || reservation?.state === 'reserved';
        if (held && !tooOld) {
          await startOperationWorkflow(deps, operation);
          summary.started.push(operation.id);
        } else if (await abandon(operation, tooOld ? 'too old to start' : 'no reservation held')) {
          summary.abandoned.push(operation.id);
        }
      }
      for (const operationId of await listReservedOfFinishedOperations(db, input.limit)) {
        await release({ db, operationId });
        summary.released.push(operationId);
      }
      if (summary.started.length + summary.abandoned.length + summary.released.length > 0) {
        logger.warn({ ...summary }, 'reconciled operations that no workflow had taken');
      }
      return summary;
    },
  };
}

export type StrandedOperationActivities = ReturnType<typeof createStrandedOperationActivities>;
