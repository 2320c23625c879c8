import { ConfigError, loadConfig, loadExternalDnsWebhookConfig, type Config } from './config.js';
import { pino } from 'pino';
import { createLogger, type Logger } from './logger.js';
import { startExternalDnsWebhook } from './externalDnsWebhook/start.js';
import { startFailureMessage } from './http/portTaken.js';

const ROLES = ['api', 'worker', 'all', 'codec-server', 'external-dns-webhook'] as const;

function parseRole(argv: string[]): (typeof ROLES)[number] {
  const index = argv.indexOf('--role');
  const role = index >= 0 ? argv[index + 1] : 'all';
  const known = ROLES.find((name) => name === role);
  if (known) return known;
  throw new ConfigError([`--role: must be ${ROLES.slice(0, -1).join(', ')} or ${ROLES.at(-1)} (got "${role}")`]);
}

/** A role that only serves HTTP: runs until SIGTERM or SIGINT, then closes. */
async function serveUntilSignal(server: { close(): Promise<void> }, logger: Logger): Promise<void> {
  await new Promise<void>((resolve) => {
    for (const signal of ['SIGTERM', 'SIGINT'] as const) process.once(signal, () => resolve());
  });
  await server.close();
  logger.info('stopped');
}

/** The codec server role: decrypts payloads for the Temporal Web UI, on its own port. */
async function runCodecServer(config: Config, logger: Logger): Promise<void> {
  const { startCodecServer } = await import('./codecServer/start.js');
  await serveUntilSignal(await startCodecServer(config, logger), logger);
}

/** external-dns's webhook provider (docs/external-dns.md): an API client with a configuration of its own. */
async function runExternalDnsWebhook(): Promise<void> {
  const config = loadExternalDnsWebhookConfig();
  const logger = createLogger(config, { role: 'external-dns-webhook' }, pino.destination({ dest: 1, sync: false }));
  await serveUntilSignal(await startExternalDnsWebhook(config, logger), logger);
}

async function main(): Promise<void> {
  const role = parseRole(process.argv.slice(2));
  if (role === 'external-dns-webhook') return runExternalDnsWebhook();
  const config = loadConfig();
  // Written off the event loop (a line per request would otherwise be a write call on it); what is
  // still buffered is written out when the process exits.
  const logger = createLogger(config, { role }, pino.destination({ dest: 1, sync: false }));
  if (role === 'codec-server') return runCodecServer(config, logger);
  // Loaded only by the roles that use them: the external-dns sidecar is an API client and runs in
  // another team's pod, so it should not carry the api's and the worker's modules in memory.
  const [{ startTracing }, { startService }] = await Promise.all([import('./telemetry/tracing.js'), import('./startup.js')]);
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
  // Configuration problems and taken ports are the operator's to fix: say what is wrong, without a stack trace.
  console.error(startFailureMessage(err, [ConfigError]));
  process.exitCode = 1;
});
