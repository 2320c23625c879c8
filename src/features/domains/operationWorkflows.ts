import { createHash } from 'node:crypto';
import { WorkflowExecutionAlreadyStartedError } from '@temporalio/client';
import type { PlatformDeps } from '../../platformDeps.js';
import type { Principal } from '../../auth/principal.js';
import { WORKFLOW_INPUT_PURPOSE, type Operation, type OperationType } from './operations.repository.js';
import { openJson } from '../../db/sealedJson.js';
import { DomainKey, LivemodeKey, OperationTypeKey, OrgIdKey } from '../../temporal/searchAttributes.js';
import { startWorkflow } from '../../workflows.js';
import type { OperationWorkflowInputs } from './operations.contract.js';
import { OPERATION_WORKFLOWS } from '../../workflows.js';

const VERBS: Record<OperationType, string> = {
  'domain.register': 'Register',
  'domain.transfer': 'Transfer in',
  'domain.renew': 'Renew',
  'dnssec.enable': 'Sign the zone of',
  'dnssec.disable': 'Unsign the zone of',
};

/**
 * Starts the operation's workflow with the input stored on the operation, or finds it already
 * running (USE_EXISTING) or finished (REJECT_DUPLICATE). Calling it twice, or after a crash between
 * writing the operation and starting, never starts the work a second time.
 */
export async function startOperationWorkflow(deps: Pick<PlatformDeps, 'temporal' | 'config' | 'payloadKeys'>, operation: Operation): Promise<void> {
  const input = openJson<OperationWorkflowInputs[OperationType]>(deps.payloadKeys, WORKFLOW_INPUT_PURPOSE, operation.workflowInput);
  try {
    await startWorkflow(deps.temporal.client, OPERATION_WORKFLOWS[operation.type], {
      workflowId: operation.workflowId,
      taskQueue: deps.config.temporal.taskQueue,
      // The stored input was written for this operation type (beginOperation) and is sent as is.
      args: [input as never],
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

/** Who asked for an operation, and with which Idempotency-Key (absent: a random one, never reused). */
export interface OperationRequester {
  orgId: string;
  livemode: boolean;
  userId: string;
  idempotencyKey: string | undefined;
}

/** The requester of a domain service's props: its org, the caller's mode and user, the Idempotency-Key. */
export function requester(props: { orgId: string; principal: Principal; idempotency: { key: string } | undefined }): OperationRequester {
  return { orgId: props.orgId, livemode: props.principal.livemode, userId: props.principal.user.id, idempotencyKey: props.idempotency?.key };
}

/**
 * The workflow id of an operation: what it does, for which org and mode, asked by which member with
 * which Idempotency-Key. The idempotency store is per member and mode, so the id is too: one member's
 * key can never lead to another member's operation (or to the other mode's).
 */
export function operationWorkflowId(kind: 'register' | 'transfer' | 'renew' | 'dnssec-enable' | 'dnssec-disable', who: OperationRequester, random: () => string): string {
  return `${kind}:${who.orgId}:${who.livemode ? 'live' : 'test'}:${who.userId}:${who.idempotencyKey ?? `auto-${random()}`}`;
}

/**
 * What the request asked for, hashed. Callers pass the fields in a fixed order, so the same request
 * always hashes the same; a different request under the same workflow id is refused (beginOperation).
 */
export function operationRequestHash(request: Record<string, unknown>): string {
  return createHash('sha256').update(JSON.stringify(request)).digest('hex');
}
