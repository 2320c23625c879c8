import type { Client } from '@temporalio/client';
import type { Config } from '../../config.js';
import { startWorkflow } from '../../workflows.js';
import { dispatcherInput, dispatcherWorkflowId } from './timing.js';

/**
 * Starts this deployment's outbox dispatcher at worker start. A running one is replaced
 * (TERMINATE_EXISTING), so a restart with new WEBHOOK_* durations applies them; the events it had
 * not yet handed on are still undispatched in the table and the new run takes them.
 */
export async function startEventDispatcher(client: Client, config: Config): Promise<string> {
  const workflowId = dispatcherWorkflowId(config);
  await startWorkflow(client, 'dispatchEventsWorkflow', {
    workflowId,
    taskQueue: config.temporal.taskQueue,
    args: [dispatcherInput(config)],
    workflowIdConflictPolicy: 'TERMINATE_EXISTING',
  });
  return workflowId;
}
