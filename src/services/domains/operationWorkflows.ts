import { WorkflowExecutionAlreadyStartedError } from '@temporalio/client';
import type { AppDeps } from '../../deps.js';
import { WORKFLOW_INPUT_PURPOSE, type Operation, type OperationType } from '../../db/repositories/operations.js';
import { openJson } from '../../db/sealedJson.js';
import { DomainKey, LivemodeKey, OperationTypeKey, OrgIdKey } from '../../temporal/searchAttributes.js';

const WORKFLOW_TYPES: Record<OperationType, string> = {
  'domain.register': 'registerDomainWorkflow',
  'domain.transfer': 'transferDomainWorkflow',
  'domain.renew': 'renewDomainWorkflow',
};

const VERBS: Record<OperationType, string> = {
  'domain.register': 'Register',
  'domain.transfer': 'Transfer in',
  'domain.renew': 'Renew',
};

interface CommonInput {
  orgId: string;
  livemode: boolean;
  name: string;
}

/**
 * Starts the operation's workflow with the input stored on the operation, or finds it already
 * running (USE_EXISTING) or finished (REJECT_DUPLICATE). Calling it twice, or after a crash between
 * writing the operation and starting, never starts the work a second time.
 */
export async function startOperationWorkflow(deps: Pick<AppDeps, 'temporal' | 'config' | 'payloadKeys'>, operation: Operation): Promise<void> {
  const input = openJson<CommonInput>(deps.payloadKeys, WORKFLOW_INPUT_PURPOSE, operation.workflowInput);
  try {
    await deps.temporal.client.workflow.start(WORKFLOW_TYPES[operation.type], {
      workflowId: operation.workflowId,
      taskQueue: deps.config.temporal.taskQueue,
      args: [input],
      workflowIdConflictPolicy: 'USE_EXISTING',
      workflowIdReusePolicy: 'REJECT_DUPLICATE',
      typedSearchAttributes: [
        { key: OrgIdKey, value: input.orgId },
        { key: DomainKey, value: input.name },
        { key: LivemodeKey, value: input.livemode },
        { key: OperationTypeKey, value: operation.type },
      ],
      memo: {
        summary: `${VERBS[operation.type]} ${input.name} (${input.livemode ? 'live' : 'test'} mode, org ${input.orgId})`,
        operationId: operation.id,
      },
    });
  } catch (err) {
    if (!(err instanceof WorkflowExecutionAlreadyStartedError)) throw err;
  }
}

/** The workflow id of an operation: what it does, for which org, from which Idempotency-Key. */
export function operationWorkflowId(kind: 'register' | 'transfer' | 'renew', orgId: string, idempotencyKey: string | undefined, random: () => string): string {
  return `${kind}:${orgId}:${idempotencyKey ?? `auto-${random()}`}`;
}
