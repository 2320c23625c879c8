import { mkdtemp } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { inject } from 'vitest';
import { runTs, type RunningProcess } from './processes.js';

/**
 * A worker as its own process (`src/main.ts --role worker`) on the test run's infrastructure and
 * the given task queue, resolved once it polls; a test can SIGKILL it like a crashed machine. `env`
 * adds to or overrides its environment (a file's own database, the webhook timings it tests).
 */
export async function startWorkerProcess(taskQueue: string, env: Record<string, string> = {}): Promise<RunningProcess> {
  const worker = runTs('src/main.ts', ['--role', 'worker'], {
    NODE_ENV: 'test',
    LOG_LEVEL: 'info',
    DATABASE_URL: inject('databaseUrl'),
    REDIS_URL: inject('redisUrl'),
    TEMPORAL_ADDRESS: inject('temporalAddress'),
    TEMPORAL_TASK_QUEUE: taskQueue,
    // The api's key: the worker must open the payloads the api's client encrypted.
    PAYLOAD_ENCRYPTION_KEYS: inject('payloadEncryptionKeys'),
    DATA_DIR: await mkdtemp(path.join(os.tmpdir(), 'domain-service-worker-')),
    // The run's bundle, as a deployment's worker loads the image's, rather than bundling at every start.
    WORKFLOW_BUNDLE: inject('workflowBundlePath'),
    ...env,
  });
  try {
    await worker.waitForOutput(/"msg":"worker polling"/, 90_000);
  } catch (err) {
    worker.child.kill('SIGKILL');
    throw err;
  }
  return worker;
}
