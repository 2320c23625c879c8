import { WorkflowExecutionAlreadyStartedError, type Client } from '@temporalio/client';
import type { ApiKeyRecord } from '../../auth/apiKeys.js';
import { startWorkflow } from '../../workflows.js';
import { recordLeakAlert } from '../../metrics/record.js';
import { LEAK_RESPONSE_RETRIES, type LeakedKeyInput, type LeakSource } from './leaks.contract.js';

/** One workflow per leaked key, ever: `revoke-key:<key_id>` for live keys, `leaked-test-key:<key_id>` for test keys (never revoked). */
export function leakWorkflowId(key: Pick<ApiKeyRecord, 'id' | 'mode'>): string {
  return key.mode === 'live' ? `revoke-key:${key.id}` : `leaked-test-key:${key.id}`;
}

export interface StartLeakResponseProps {
  temporal: { client: Client; taskQueue: string };
  key: Pick<ApiKeyRecord, 'id' | 'mode' | 'name' | 'prefix'>;
  sourceUrl: string;
  source: LeakSource;
  foundAt: Date;
}

/**
 * Starts the leak workflow of a key, or joins it while it runs (USE_EXISTING), or finds it finished
 * (REJECT_DUPLICATE, `alreadyClosed`): the same leak reported twice, or by both GitHub and our scan,
 * is handled once.
 */
export async function startLeakResponse(props: StartLeakResponseProps): Promise<{ workflowId: string; alreadyClosed: boolean }> {
  const { key } = props;
  const workflowId = leakWorkflowId(key);
  const input: LeakedKeyInput = {
    keyId: key.id,
    mode: key.mode,
    sourceUrl: props.sourceUrl,
    source: props.source,
    foundAt: props.foundAt.toISOString(),
    retries: LEAK_RESPONSE_RETRIES,
  };
  const what = key.mode === 'live' ? 'Revoke leaked live key' : 'Report leaked test key (not revoked)';
  try {
    await startWorkflow(props.temporal.client, 'revokeLeakedKeyWorkflow', {
      workflowId,
      taskQueue: props.temporal.taskQueue,
      args: [input],
      workflowIdConflictPolicy: 'USE_EXISTING',
      workflowIdReusePolicy: 'REJECT_DUPLICATE',
      memo: {
        summary: `${what} ${key.prefix}… "${key.name}" (${key.id}), found by ${props.source} at ${props.sourceUrl}; e-mail the owner`,
        keyId: key.id,
        sourceUrl: props.sourceUrl,
      },
    });
    recordLeakAlert(props.source, 'started');
    return { workflowId, alreadyClosed: false };
  } catch (err) {
    if (!(err instanceof WorkflowExecutionAlreadyStartedError)) throw err;
    recordLeakAlert(props.source, 'already_handled');
    return { workflowId, alreadyClosed: true };
  }
}
