/**
 * `npm run dev`: the one-command local run. Creates and migrates the database, starts the codec
 * server, starts (or reuses) a local Temporal dev server whose Web UI decodes payloads through it,
 * and a local PowerDNS for test-mode zones when it is installed, then the worker and the api in
 * this process with the development identity provider, and prints where everything is.
 */
import { mkdir } from 'node:fs/promises';
import path from 'node:path';
import { ConfigError, loadConfig, type Config } from '../src/config.js';
import { createLogger, type Logger } from '../src/logger.js';
import { ensureDatabase, migrateUp } from '../src/db/migrate.js';
import { installTemporalRuntime } from '../src/temporal/runtime.js';
import { startTracing } from '../src/telemetry/tracing.js';
import { startService } from '../src/startup.js';
import { startCodecServer } from '../src/codecServer/start.js';
import type { ListeningServer } from '../src/http/listen.js';
import { startFailureMessage } from '../src/http/portTaken.js';
import { resolveTemporalCli } from './lib/temporalCli.js';
import { portOpen, startTemporalDevServer, waitForTemporal, type TemporalDevServer } from './lib/temporalDevServer.js';
import { startDashboardDevServer } from './lib/dashboardDevServer.js';
import { devEnvironment } from './lib/devEnvironment.js';
import { startDevPowerDns } from './lib/devPowerDns.js';
import { startDevMailForwarding } from './lib/devMailForwarding.js';

// TEMPORAL_DEV_PORT moves the local dev server (and its UI, 1000 above) off the defaults.
const TEMPORAL_PORT = Number(process.env.TEMPORAL_DEV_PORT ?? 7233);
const TEMPORAL_UI_PORT = TEMPORAL_PORT + 1000;
// DASHBOARD_DEV_PORT moves the dashboard's Vite dev server (hot reload) off 5173.
const DASHBOARD_DEV_PORT = Number(process.env.DASHBOARD_DEV_PORT ?? 5173);
// PDNS_DEV_PORT moves the test-mode DNS server off 5300 (its API is one above); PDNS_DEV_RESOLVER
// is where it looks ALIAS targets up (default: itself, so targets in test zones answer offline).
const PDNS_DEV_PORT = Number(process.env.PDNS_DEV_PORT ?? 5300);

/**
 * Test-mode zones: the DNS host DNS_TEST_PROVIDER_URL names, else a local PowerDNS when it is
 * installed, else synthetic (served by no one). The banner's line says which, and how to query it.
 */
async function localTestDns(config: Config): Promise<{ config: Config; line: string; stop?: () => Promise<void> }> {
  if (config.dnsTestProvider) return { config, line: `${config.dnsTestProvider.url} (DNS_TEST_PROVIDER_URL)` };
  const started = await startDevPowerDns({ dataDir: config.dataDir, dnsPort: PDNS_DEV_PORT, resolver: process.env.PDNS_DEV_RESOLVER });
  if ('notStarted' in started) return { config, line: started.notStarted };
  const { server } = started;
  return {
    config: { ...config, dnsTestProvider: { url: server.apiUrl, token: server.apiKey } },
    line: `dig @127.0.0.1 -p ${server.dnsPort} <test domain> (PowerDNS serving test-mode zones; API ${server.apiUrl})`,
    stop: server.stop,
  };
}

/** The codec server, allowing the local Web UI's origin on whichever port it runs. */
async function localCodecServer(config: Config, logger: Logger): Promise<ListeningServer> {
  const uiOrigins = [`http://localhost:${TEMPORAL_UI_PORT}`, `http://127.0.0.1:${TEMPORAL_UI_PORT}`];
  const corsOrigins = [...new Set([...config.codecServer.corsOrigins, ...uiOrigins])];
  return startCodecServer({ ...config, codecServer: { ...config.codecServer, corsOrigins } }, logger);
}

async function localTemporal(
  config: Config,
  logger: Logger,
  uiCodecEndpoint: string,
): Promise<{ address: string; uiUrl: string | undefined; server?: TemporalDevServer }> {
  if (config.temporal.address) return { address: config.temporal.address, uiUrl: undefined };
  if (await portOpen(TEMPORAL_PORT)) {
    const address = `127.0.0.1:${TEMPORAL_PORT}`;
    await waitForTemporal(address, config.temporal.namespace, 10_000);
    logger.info({ address }, 'reusing the Temporal server already listening');
    logger.warn({ uiCodecEndpoint }, 'its Web UI shows payloads encrypted unless it was started with --ui-codec-endpoint');
    return { address, uiUrl: `http://127.0.0.1:${TEMPORAL_UI_PORT}` };
  }
  const cliPath = await resolveTemporalCli((line) => logger.info(line));
  const server = await startTemporalDevServer({
    cliPath,
    port: TEMPORAL_PORT,
    uiPort: TEMPORAL_UI_PORT,
    namespace: config.temporal.namespace,
    uiCodecEndpoint,
    dbFile: path.resolve(config.dataDir, 'temporal.sqlite'),
    logFile: path.resolve(config.dataDir, 'temporal.log'),
  });
  logger.info({ address: server.address, cliPath: cliPath ?? 'SDK download' }, 'started Temporal dev server');
  return { address: server.address, uiUrl: server.uiUrl, server };
}

async function main(): Promise<void> {
  const baseConfig = loadConfig(devEnvironment(process.env));
  if (baseConfig.env === 'production') throw new ConfigError(['NODE_ENV: npm run dev refuses production']);
  const logger = createLogger(baseConfig, { role: 'dev' });
  installTemporalRuntime(logger, { metrics: baseConfig.temporalMetrics });
  startTracing(baseConfig.tracing, { 'service.instance.role': 'all' });
  await mkdir(baseConfig.dataDir, { recursive: true });

  await ensureDatabase(baseConfig.databaseUrl);
  const applied = await migrateUp(baseConfig.databaseUrl, logger);
  logger.info({ applied }, 'database migrated');

  const codecServer = await localCodecServer(baseConfig, logger);
  const temporal = await localTemporal(baseConfig, logger, codecServer.url);
  const dashboardDev = await startDashboardDevServer({ apiUrl: `http://127.0.0.1:${baseConfig.http.port}`, port: DASHBOARD_DEV_PORT }).catch(async (err: unknown) => {
    await codecServer.close(1_000);
    await temporal.server?.stop();
    throw err;
  });
  const testDns = await localTestDns(baseConfig);
  const config: Config = {
    ...testDns.config,
    temporal: { ...baseConfig.temporal, address: temporal.address },
    dashboard: { ...baseConfig.dashboard, extraOrigins: [...baseConfig.dashboard.extraOrigins, ...dashboardDev.origins] },
  };
  const service = await startService({ config, logger, role: 'all' }).catch(async (err: unknown) => {
    // Nothing of ours outlives a failed start: a PowerDNS or Temporal server left behind would hold its
    // port, and the servers still listening would keep this process from exiting.
    await dashboardDev.close();
    await codecServer.close(1_000);
    await temporal.server?.stop();
    await testDns.stop?.();
    throw err;
  });

  const mailForwarding = await startDevMailForwarding(service.deps).catch((err: unknown) => ({ line: `not started: ${err instanceof Error ? err.message.split('\n')[0] : String(err)}`, stop: undefined }));
  const token = service.deps.devIdentity
    ? await service.deps.devIdentity.issueToken({ email: 'dev@example.com', name: 'Dev User' })
    : undefined;
  const lines = [
    '',
    'Domain service is running (Ctrl-C stops it).',
    `  Dashboard:    ${dashboardDev.url} (hot reload${service.deps.devIdentity ? '; sign in with any e-mail and name' : ''}; the built one: ${service.apiUrl}/dashboard/ after npm run build)`,
    `  API:          ${service.apiUrl}/api/v1`,
    `  Reference:    ${service.apiUrl}/docs`,
    `  Readiness:    ${service.apiUrl}/readyz`,
    `  Temporal:     ${temporal.address} (namespace ${config.temporal.namespace}, task queue ${config.temporal.taskQueue})`,
    `  Temporal UI:  ${temporal.uiUrl ?? 'see your Temporal deployment'}`,
    `  Codec server: ${codecServer.url} (the UI decrypts payloads through it; stop it and they show as ciphertext)`,
    `  Test DNS:     ${testDns.line}`,
    `  Mail forwarding: ${mailForwarding.line}`,
    ...(service.metricsUrl ? [`  Metrics:      ${service.metricsUrl}/metrics`] : []),
    ...(config.temporalMetrics ? [`  SDK metrics:  http://${config.temporalMetrics.host}:${config.temporalMetrics.port}/metrics (Temporal's own)`] : []),
    ...(token
      ? [
          '',
          'Session token for dev@example.com (12 h; more with `npm run token -- --email you@example.com`):',
          `  export TOKEN=${token}`,
          '',
          'First call:',
          `  curl -s ${service.apiUrl}/readyz`,
          `  curl -s -H "Authorization: Bearer $TOKEN" ${service.apiUrl}/api/v1/me`,
          '',
          'Command line (docs/cli.md):',
          `  npx domain-service login --api-url ${service.apiUrl}`,
        ]
      : []),
    '',
  ];
  console.log(lines.join('\n'));

  let stopping = false;
  for (const signal of ['SIGINT', 'SIGTERM'] as const) {
    process.once(signal, () => {
      if (stopping) return;
      stopping = true;
      void (async () => {
        await mailForwarding.stop?.();
        await service.stop();
        await temporal.server?.stop();
        await testDns.stop?.();
      })();
    });
  }
  await service.stopped;
  await mailForwarding.stop?.();
  await dashboardDev.close();
  await codecServer.close(1_000);
  await temporal.server?.stop();
  await testDns.stop?.();
}

main().catch((err: unknown) => {
  console.error(startFailureMessage(err, [ConfigError]));
  process.exitCode = 1;
});
