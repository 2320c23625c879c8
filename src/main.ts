import { ConfigError, loadConfig } from './config.js';
import { createLogger } from './logger.js';
import { installTemporalRuntime } from './temporal/runtime.js';
import { startService, type Role } from './startup.js';

function parseRole(argv: string[]): Role {
  const index = argv.indexOf('--role');
  const role = index >= 0 ? argv[index + 1] : 'all';
  if (role === 'api' || role === 'worker' || role === 'all') return role;
  throw new ConfigError([`--role: must be api, worker or all (got "${role}")`]);
}

async function main(): Promise<void> {
  const role = parseRole(process.argv.slice(2));
  const config = loadConfig();
  const logger = createLogger(config, { role });
  installTemporalRuntime(logger);
  const service = await startService({ config, logger, role });
  for (const signal of ['SIGTERM', 'SIGINT'] as const) {
    process.once(signal, () => {
      logger.info({ signal }, 'signal received');
      void service.stop();
    });
  }
  await service.stopped;
}

main().catch((err: unknown) => {
  // Configuration problems are the operator's to fix: say what is wrong, without a stack trace.
  console.error(err instanceof ConfigError ? err.message : err);
  process.exitCode = 1;
});
