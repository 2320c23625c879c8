/**
 * A worker for the registration floor (bench/servers/sameShapeWorkflow.ts), compiled and in a process
 * of its own like the real worker, with the same tuning (WORKER_* settings), on its own task queue. Prints
 * `{"taskQueue": …}` once it polls, then runs until SIGTERM.
 */
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { NativeConnection, Worker } from '@temporalio/worker';
import { loadConfig, temporalAddress } from '../../src/config.js';
import { workerTuning } from '../../src/worker/worker.js';

export interface NoopActivities {
  noop(step: number): Promise<number>;
}

const activities: NoopActivities = {
  noop: (step) => Promise.resolve(step),
};

const config = loadConfig();
const taskQueue = process.env.BENCH_FLOOR_TASK_QUEUE ?? 'bench-floor';
const connection = await NativeConnection.connect({ address: temporalAddress(config) });
const worker = await Worker.create({
  connection,
  namespace: config.temporal.namespace,
  taskQueue,
  workflowsPath: fileURLToPath(new URL(`./sameShapeWorkflow${path.extname(fileURLToPath(import.meta.url))}`, import.meta.url)),
  activities,
  // The same slots, pollers and cache as the real worker (src/worker/worker.ts).
  ...workerTuning(config.worker),
});
process.once('SIGTERM', () => worker.shutdown());
const running = worker.run();
console.log(JSON.stringify({ taskQueue }));
await running;
await connection.close();
