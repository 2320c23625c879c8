import { DefaultLogger, Runtime, type LogLevel } from '@temporalio/worker';
import type { Logger } from '../logger.js';

const PINO_LEVEL: Record<LogLevel, 'trace' | 'debug' | 'info' | 'warn' | 'error'> = {
  TRACE: 'trace',
  DEBUG: 'debug',
  INFO: 'info',
  WARN: 'warn',
  ERROR: 'error',
};

/**
 * Routes the SDK's own logs through our logger. Must run before any Temporal connection,
 * worker or test environment is created in this process.
 */
export function installTemporalRuntime(logger: Logger, level: LogLevel = 'WARN'): void {
  Runtime.install({
    logger: new DefaultLogger(level, (entry) => {
      logger[PINO_LEVEL[entry.level]]({ temporal: entry.meta }, entry.message);
    }),
  });
}
