import { ConfigError, loadConfig, type Config } from './config.js';
import { pino } from 'pino';
import { createLogger, type Logger } from './logger.js';
import { startService, type Role } from './startup.js';
import { startCodecServer } from './codecServer/start.js';
import { startTracing } from './telemetry/tracing.js';

function parseRole(argv: string[]): Role | 'codec-server' {
  const index = argv.indexOf('--role');
  const role = index >= 0 ? argv[index + 1] : 'all';
  if (role === 'api' || role === 'worker' || role === 'all' || role === 'codec-server') return role;
  throw new ConfigError([`--role: must be api, worker, all or codec-server (got "${role}")`]);
}

/** The codec server role: decrypts payloads for the Temporal Web UI, on its own port. */
async function runCodecServer(config: Config, logger: Logger): Promise<void> {
  const server = await startCodecServer(config, logger);
  await new Promise<void>((resolve) => {
    for (const signal of ['SIGTERM', 'SIGINT'] as const) process.once(signal, () => resolve());
  });
  await server.close();
  logger.info('stopped');
}

async function main(): Promise<void> {
  const role = parseRole(process.argv.slice(2));
  const config = loadConfig();
  // Written off the event loop (a line per request would otherwise be a write call on it); what is
  // still buffered is written out when the process exits.
  const logger = createLogger(config, { role }, pino.destination({ dest: 1, sync: false }));
  if (role === 'codec-server') return runCodecServer(config, logger);
  const tracing = startTracing(config.tracing, { 'service.instance.role': role });
  // Only a worker runs the SDK's native runtime (and has its metrics to serve); an api never loads it.
  if (role !== 'api') (await import('./temporal/runtime.js')).installTemporalRuntime(logger, { metrics: config.temporalMetrics });
  const service = await startService({ config, logger, role });
  for (const signal of ['SIGTERM', 'SIGINT'] as const) {
    process.once(signal, () => {
      logger.info({ signal }, 'signal received');
      void service.stop().then(() => tracing?.shutdown());
    });
  }
  await service.stopped;
}

main().catch((err: unknown) => {
  // Configuration problems are the operator's to fix: say what is wrong, without a stack trace.
  console.error(err instanceof ConfigError ? err.message : err);
  process.exitCode = 1;
});
