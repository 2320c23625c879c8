/**
 * `npm run stack`: the service on the production topology of docs/operations.md, all of it on this
 * machine (scripts/lib/cluster/): PostgreSQL under Patroni with a synchronous standby behind HAProxy,
 * Redis with Sentinels, a Temporal cluster of two server processes on that PostgreSQL and its Web UI
 * (decoding payloads through the codec server), then the api and the worker in this process with the
 * development identity provider. Its data lives in a temporary directory, removed when it stops
 * (Ctrl-C); `STACK_KEEP=1` leaves it. PORT moves the api; STACK_UI_PORT the Web UI.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { ConfigError, loadConfig, type Config } from '../src/config.js';
import { createLogger } from '../src/logger.js';
import { ensureDatabase, migrateUp } from '../src/db/migrate.js';
import { installTemporalRuntime } from '../src/temporal/runtime.js';
import { startService } from '../src/startup.js';
import { startCodecServer } from '../src/codecServer/start.js';
import { startFailureMessage } from '../src/http/portTaken.js';
import { startCluster, type Cluster } from './lib/cluster/index.js';
import { devEnvironment } from './lib/devEnvironment.js';
import { freePort } from './lib/temporalDevServer.js';

async function main(): Promise<void> {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'domain-service-stack-'));
  const uiPort = Number(process.env.STACK_UI_PORT ?? (await freePort()));
  const uiOrigins = [`http://127.0.0.1:${uiPort}`, `http://localhost:${uiPort}`];
  const codecPort = await freePort();
  const log = (line: string) => console.error(`[stack] ${line}`);
  let cluster: Pick<Cluster, 'stop' | 'lastResort'> | undefined;
  process.once('exit', () => cluster?.lastResort());
  const cleanUp = async () => {
    await cluster?.stop();
    if (!process.env.STACK_KEEP) await rm(dir, { recursive: true, force: true });
    else log(`data and logs kept in ${dir}`);
  };

  const placeholder = loadConfig(devEnvironment(process.env));
  if (placeholder.env === 'production') throw new ConfigError(['NODE_ENV: npm run stack refuses production']);
  const logger = createLogger(placeholder, { role: 'stack' });
  installTemporalRuntime(logger, { metrics: placeholder.temporalMetrics });
  const codecServer = await startCodecServer(
    { ...placeholder, codecServer: { ...placeholder.codecServer, port: codecPort, corsOrigins: [...placeholder.codecServer.corsOrigins, ...uiOrigins] } },
    logger,
  );
  let started: Cluster;
  try {
    started = await startCluster({ dir, log, namespace: placeholder.temporal.namespace, ui: { codecEndpoint: codecServer.url, port: uiPort }, onStopper: (s) => (cluster = s) });
  } catch (err) {
    await codecServer.close(1_000);
    log(`logs in ${dir}`);
    process.env.STACK_KEEP = '1';
    await cleanUp();
    throw err;
  }
  const databaseUrl = started.databaseUrl('domains');
  const config: Config = loadConfig(
    devEnvironment({ ...process.env, DATABASE_URL: databaseUrl, TEMPORAL_ADDRESS: started.temporalAddress, ...started.redisEnv }),
  );
  await ensureDatabase(databaseUrl);
  logger.info({ applied: await migrateUp(databaseUrl, logger) }, 'database migrated');
  const service = await startService({ config, logger, role: 'all' }).catch(async (err: unknown) => {
    await codecServer.close(1_000);
    await cleanUp();
    throw err;
  });
  const token = service.deps.devIdentity ? await service.deps.devIdentity.issueToken({ email: 'dev@example.com', name: 'Dev User' }) : undefined;
  const primary = await started.postgres.primary();
  console.log(
    [
      '',
      'Domain service is running on the cluster (Ctrl-C stops all of it).',
      `  API:           ${service.apiUrl}/api/v1`,
      `  Dashboard:     ${service.apiUrl}/dashboard/ (after npm run build)`,
      `  PostgreSQL:    ${databaseUrl} (HAProxy to the primary, now ${primary?.name}; nodes ${started.postgres.nodes.map((n) => `${n.name} 127.0.0.1:${n.pgPort}, Patroni API :${n.restPort}`).join('; ')})`,
      `  Redis:         Sentinels ${started.redis.sentinelList} (master name ${started.redisEnv.REDIS_SENTINEL_NAME})`,
      `  Temporal:      ${started.temporalAddress} (HAProxy to ${started.temporal.nodes.map((n) => `${n.name} :${n.frontendPort}`).join(', ')}; namespace ${config.temporal.namespace}, task queue ${config.temporal.taskQueue})`,
      `  Temporal UI:   ${started.uiUrl}`,
      `  Codec server:  ${codecServer.url}`,
      `  Data and logs: ${dir}`,
      ...(token
        ? ['', 'Session token for dev@example.com:', `  export TOKEN=${token}`, `  curl -s -H "Authorization: Bearer $TOKEN" ${service.apiUrl}/api/v1/me`]
        : []),
      '',
    ].join('\n'),
  );
  let stopping = false;
  for (const signal of ['SIGINT', 'SIGTERM'] as const) {
    process.on(signal, () => {
      if (stopping) return;
      stopping = true;
      void service.stop();
    });
  }
  await service.stopped;
  await codecServer.close(1_000);
  await cleanUp();
}

main().catch((err: unknown) => {
  console.error(startFailureMessage(err, [ConfigError]));
  process.exitCode = 1;
});
