/**
 * Container health check for the worker, which has no HTTP port: healthy while Temporal reports a
 * poller on the configured task queue. Exit code 0 or 1, one line of output.
 */
import { Connection } from '@temporalio/client';
import { loadConfig, temporalAddress } from '../config.js';
import { taskQueueHasPollers } from '../temporal/client.js';

const config = loadConfig();
// Only a connection: describing the task queue carries no payloads, so no keys are needed.
const temporal = { connection: Connection.lazy({ address: temporalAddress(config) }) };
try {
  const polling = await taskQueueHasPollers(temporal, config);
  console.log(polling ? `task queue ${config.temporal.taskQueue} has pollers` : `no poller on ${config.temporal.taskQueue}`);
  process.exitCode = polling ? 0 : 1;
} catch (err) {
  console.log(`Temporal unreachable: ${(err as Error).message}`);
  process.exitCode = 1;
} finally {
  await temporal.connection.close();
}
