import type { PlatformDeps } from '../../platformDeps.js';
import type { Operation } from './operations.repository.js';
import { ConflictError } from '../../errors.js';
import type { Principal } from '../../auth/principal.js';
import { operationOfCaller } from './operationOfCaller.js';
import { cancelTransferSignal } from './operations.contract.js';

/**
 * Asks a pending transfer to stop; the workflow cancels it at the registrar and releases the funds.
 * A key restricted to other domains is refused before anything is asked (operationOfCaller.ts).
 */
export async function cancelOperation(props: {
  deps: Pick<PlatformDeps, 'db' | 'temporal'>;
  principal: Principal;
  orgId: string;
  operationId: string;
}): Promise<Operation> {
  const operation = await operationOfCaller(props.deps.db, props.principal, props.orgId, props.operationId);
  if (operation.type !== 'domain.transfer' || (operation.status !== 'pending' && operation.status !== 'running')) {
    throw new ConflictError('OPERATION_NOT_CANCELLABLE', `Only pending transfers can be cancelled; this ${operation.type} is ${operation.status}`);
  }
  await props.deps.temporal.client.workflow.getHandle(operation.workflowId).signal(cancelTransferSignal);
  return operation;
}
