import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { NativeConnection, Worker, type WorkerOptions, type WorkflowBundleOption } from '@temporalio/worker';
import { createActivities, type ActivityDeps } from '../../activities/index.js';
import { temporalAddress, type Config } from '../config.js';
import type { AppDeps } from '../deps.js';
import { encryptedDataConverter } from '../temporal/payloadCodec.js';
import { workerTracingOptions } from '../telemetry/tracing.js';

/** The bundle's one entry: `workflows/index.ts` under tsx, `dist/workflows/index.js` when compiled. */
export const WORKFLOWS_PATH = fileURLToPath(new URL(`../../workflows/index${path.extname(fileURLToPath(import.meta.url))}`, import.meta.url));

/** The concurrency and polling of WORKER_* (docs/configuration.md). */
export function workerTuning(settings: Config['worker']): Partial<WorkerOptions> {
  const pollers = (maximum: number): NonNullable<WorkerOptions['workflowTaskPollerBehavior']> =>
    // Autoscaling opens more polls while tasks keep coming and fewer when idle, within 1..maximum.
    settings.pollerAutoscaling ? { type: 'autoscaling', minimum: 1, maximum, initial: Math.min(5, maximum) } : { type: 'simple-maximum', maximum };
  return {
    maxConcurrentWorkflowTaskExecutions: settings.maxConcurrentWorkflowTasks,
    maxConcurrentActivityTaskExecutions: settings.maxConcurrentActivities,
    maxConcurrentLocalActivityExecutions: settings.maxConcurrentLocalActivities,
    maxCachedWorkflows: settings.maxCachedWorkflows,
    workflowTaskPollerBehavior: pollers(settings.workflowPollers),
    activityTaskPollerBehavior: pollers(settings.activityPollers),
  };
}

export interface RunningWorker {
  worker: Worker;
  connection: NativeConnection;
}

/**
 * A worker polling the configured task queue. Its workflows: the bundle passed (tests share one), else
 * WORKFLOW_BUNDLE's (src/worker/workflowBundle.ts), else bundled at start.
 */
export async function createWorker(
  deps: Pick<AppDeps, 'config' | 'db' | 'redis' | 'logger' | 'metrics' | 'registrars' | 'temporal' | 'apiKeys' | 'keyHashSecret' | 'payloadKeys'>,
  workflowBundle?: WorkflowBundleOption,
  /** Stand-ins for what the worker reaches outside (tests: a resolver that never asks the real DNS). */
  outside: Pick<ActivityDeps, 'webhookResolver'> = {},
): Promise<RunningWorker> {
  const { config } = deps;
  const bundle = workflowBundle ?? (config.worker.bundle ? { codePath: config.worker.bundle } : undefined);
  const connection = await NativeConnection.connect({ address: temporalAddress(config) });
  try {
    const worker = await Worker.create({
      connection,
      namespace: config.temporal.namespace,
      taskQueue: config.temporal.taskQueue,
      ...workerTuning(config.worker),
      // Codecs run outside the workflow sandbox, so the bundle needs nothing of this.
      dataConverter: encryptedDataConverter(deps.payloadKeys),
      ...(bundle ? { workflowBundle: bundle } : { workflowsPath: WORKFLOWS_PATH }),
      ...workerTracingOptions(),
      activities: createActivities({
        config,
        db: deps.db,
        redis: deps.redis,
        registrars: deps.registrars,
        temporal: deps.temporal,
        apiKeys: deps.apiKeys,
        keyHashSecret: deps.keyHashSecret,
        payloadKeys: deps.payloadKeys,
        logger: deps.logger.child({ component: 'activity' }),
        metrics: deps.metrics,
        ...outside,
      }),
    });
    return { worker, connection };
  } catch (err) {
    await connection.close();
    throw err;
  }
}
