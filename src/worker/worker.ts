import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { NativeConnection, Worker, type WorkflowBundleOption } from '@temporalio/worker';
import { createActivities } from '../../activities/index.js';
import { temporalAddress } from '../config.js';
import type { AppDeps } from '../deps.js';
import { encryptedDataConverter } from '../temporal/payloadCodec.js';
import { workerTracingOptions } from '../telemetry/tracing.js';

/** `workflows/index.ts` under tsx, `dist/workflows/index.js` when compiled. */
export const WORKFLOWS_PATH = fileURLToPath(
  new URL(`../../workflows/index${path.extname(fileURLToPath(import.meta.url))}`, import.meta.url),
);

export interface RunningWorker {
  worker: Worker;
  connection: NativeConnection;
}

/**
 * A worker polling the configured task queue. Pass a pre-built bundle to skip bundling
 * (tests share one); otherwise the workflows are bundled at start.
 */
export async function createWorker(
  deps: Pick<AppDeps, 'config' | 'db' | 'logger' | 'metrics' | 'registrars' | 'temporal' | 'apiKeys' | 'keyHashSecret' | 'payloadKeys'>,
  workflowBundle?: WorkflowBundleOption,
): Promise<RunningWorker> {
  const { config } = deps;
  const connection = await NativeConnection.connect({ address: temporalAddress(config) });
  try {
    const worker = await Worker.create({
      connection,
      namespace: config.temporal.namespace,
      taskQueue: config.temporal.taskQueue,
      // Codecs run outside the workflow sandbox, so the bundle needs nothing of this.
      dataConverter: encryptedDataConverter(deps.payloadKeys),
      ...(workflowBundle ? { workflowBundle } : { workflowsPath: WORKFLOWS_PATH }),
      ...workerTracingOptions(),
      activities: createActivities({
        config,
        db: deps.db,
        registrars: deps.registrars,
        temporal: deps.temporal,
        apiKeys: deps.apiKeys,
        keyHashSecret: deps.keyHashSecret,
        payloadKeys: deps.payloadKeys,
        logger: deps.logger.child({ component: 'activity' }),
        metrics: deps.metrics,
      }),
    });
    return { worker, connection };
  } catch (err) {
    await connection.close();
    throw err;
  }
}
