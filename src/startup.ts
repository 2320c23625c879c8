import type { WorkflowBundleOption } from '@temporalio/worker';
import type { Config } from './config.js';
import type { Logger } from './logger.js';
import type { RouteSpec } from './http/route.js';
import { closeDeps, createDeps, type AppDeps } from './deps.js';
import { createApp } from './app.js';
import { listen, type ListeningServer } from './http/listen.js';
import type { RunningWorker } from './worker/worker.js';
import { ensureSearchAttributes } from './temporal/client.js';
import { isTemporalBusy, retryWhileTemporalBusy, type BusyRetryOptions } from './temporal/busyRetry.js';
import { ensureSchedules } from './worker/schedules.js';
import { startEventDispatcher } from './features/webhooks/index.js';
import { startMetricsServer } from './metrics/server.js';

export type Role = 'api' | 'worker' | 'all';

export interface RunningService {
  deps: AppDeps;
  apiUrl: string | undefined;
  /** Where `/metrics` is served: every role, with METRICS_PORT set. */
  metricsUrl: string | undefined;
  /** Resolves when the service has stopped, by `stop()` or because the worker failed. */
  stopped: Promise<void>;
  stop(): Promise<void>;
}

export interface StartServiceProps {
  config: Config;
  logger: Logger;
  role: Role;
  workflowBundle?: WorkflowBundleOption;
  /** Routes only a test registers. */
  extraRoutes?: RouteSpec[];
}

async function registerSearchAttributes(deps: AppDeps, busyRetry: BusyRetryOptions): Promise<void> {
  try {
    const added = await retryWhileTemporalBusy(
      'registering search attributes',
      () => ensureSearchAttributes(deps.temporal.connection, deps.config.temporal.namespace),
      busyRetry,
    );
    if (added.length > 0) deps.logger.info({ added }, 'registered Temporal search attributes');
  } catch (err) {
    // Still busy after every try: the worker stops here rather than try the rest against it.
    if (isTemporalBusy(err)) throw err;
    // Temporal Cloud has no operator API: there the attributes are created in its console.
    deps.logger.warn({ err }, 'could not register Temporal search attributes; create them on the cluster');
  }
}

/** Starts the api, the worker or both in this process, sharing one set of dependencies. */
export async function startService({ config, logger, role, workflowBundle, extraRoutes }: StartServiceProps): Promise<RunningService> {
  const deps = await createDeps(config, logger);
  let worker: RunningWorker | undefined;
  let http: ListeningServer | undefined;
  let metricsHttp: ListeningServer | undefined;
  let workerRun: Promise<void> = Promise.resolve();
  let stopping: Promise<void> | undefined;
  let resolveStopped!: () => void;
  const stopped = new Promise<void>((resolve) => (resolveStopped = resolve));

  const stop = (): Promise<void> => {
    stopping ??= (async () => {
      logger.info('shutting down: no new requests, draining in-flight work');
      // Open event streams never end by themselves: told to reconnect, so the drain does not wait for them.
      await deps.eventStreams.close();
      await http?.close();
      if (worker && worker.worker.getState() === 'RUNNING') worker.worker.shutdown();
      await workerRun.catch(() => undefined);
      await worker?.connection.close();
      // Last to go, so the final counts of the drained work can still be scraped.
      await metricsHttp?.close(1_000);
      await closeDeps(deps);
      logger.info('stopped');
      resolveStopped();
    })();
    return stopping;
  };

  try {
    if (config.metrics) metricsHttp = await startMetricsServer(deps.metrics, config.metrics, logger);
    if (role !== 'api') {
      // Each call is safe to repeat, so a busy Temporal delays the worker instead of stopping it (docs/operations.md).
      const busyRetry: BusyRetryOptions = { logger, connection: deps.temporal.connection };
      await registerSearchAttributes(deps, busyRetry);
      const schedules = await retryWhileTemporalBusy('creating schedules', () => ensureSchedules(deps.temporal.client, config), busyRetry);
      logger.info({ schedules }, 'Temporal schedules in place');
      if (config.webhooks.dispatcher) {
        const workflowId = await retryWhileTemporalBusy('starting the event dispatcher', () => startEventDispatcher(deps.temporal.client, config), busyRetry);
        logger.info({ workflowId }, 'event dispatcher started');
      }
      // Loaded here so an api process never loads the SDK's native worker runtime (docs/bench.md: the memory row).
      const { createWorker } = await import('./worker/worker.js');
      worker = await createWorker(deps, workflowBundle);
      workerRun = worker.worker.run();
      workerRun.catch((err: unknown) => {
        logger.fatal({ err }, 'worker failed; stopping');
        process.exitCode = 1;
        void stop();
      });
      logger.info({ taskQueue: config.temporal.taskQueue }, 'worker polling');
    }
    if (role !== 'worker') {
      http = await listen(
        (listeningUrl) => createApp(deps, { extraRoutes: extraRoutes ?? [], listeningUrl }),
        config.http.host,
        config.http.port,
        config.httpTimeouts,
        'PORT',
      );
      logger.info({ url: http.url }, 'api listening');
    }
  } catch (err) {
    await stop();
    throw err;
  }
  return { deps, apiUrl: http?.url, metricsUrl: metricsHttp?.url, stopped, stop };
}
