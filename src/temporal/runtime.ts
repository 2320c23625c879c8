import { DefaultLogger, Runtime, type LogLevel } from '@temporalio/worker';
import type { Logger } from '../logger.js';
import { PortTakenError } from '../http/portTaken.js';

const PINO_LEVEL: Record<LogLevel, 'trace' | 'debug' | 'info' | 'warn' | 'error'> = {
  TRACE: 'trace',
  DEBUG: 'debug',
  INFO: 'info',
  WARN: 'warn',
  ERROR: 'error',
};

/**
 * Routes the SDK's own logs through our logger and, given `metrics`, serves the SDK's own Prometheus
 * metrics (`temporal_*`: task slots, poll and schedule-to-start latencies, …) on that address, beside
 * ours on METRICS_PORT. Must run before any Temporal connection, worker or test environment is
 * created in this process.
 */
export function installTemporalRuntime(logger: Logger, options: { level?: LogLevel; metrics?: { host: string; port: number } } = {}): void {
  const { metrics } = options;
  try {
    install(logger, options.level, metrics);
  } catch (err) {
    // The SDK's native exporter says only "Address already in use (os error 98)".
    if (metrics && /Address already in use|os error 98/.test((err as Error).message)) throw new PortTakenError(metrics.host, metrics.port, 'TEMPORAL_METRICS_PORT');
    throw err;
  }
}

function install(logger: Logger, level: LogLevel | undefined, metrics: { host: string; port: number } | undefined): void {
  Runtime.install({
    logger: new DefaultLogger(level ?? 'WARN', (entry) => {
      logger[PINO_LEVEL[entry.level]]({ temporal: entry.meta }, entry.message);
    }),
    ...(metrics
      ? {
          telemetryOptions: {
            metrics: {
              prometheus: { bindAddress: `${hostForBind(metrics.host)}:${metrics.port}`, useSecondsForDurations: true, countersTotalSuffix: true },
            },
          },
        }
      : {}),
  });
}

/** An IPv6 literal needs brackets in a socket address. */
const hostForBind = (host: string) => (host.includes(':') ? `[${host}]` : host);
