/**
 * The production topology of docs/operations.md on one machine, every part on loopback ports of its
 * own with its data under one directory: PostgreSQL under Patroni (etcd) with a synchronous standby,
 * HAProxy following the primary and balancing the Temporal frontends, Redis with three Sentinels, a
 * Temporal cluster of two server processes on that PostgreSQL, and Temporal's Web UI. `npm run stack`
 * runs the service on it; `npm run fault -- --production` breaks it.
 */
import { chmodSync, mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import pg from 'pg';
import { freePort } from '../temporalDevServer.js';
import { daemon, until, type Daemon } from './daemon.js';
import { startHaproxy, type Haproxy } from './haproxy.js';
import { startPostgresHa, type PostgresHa } from './postgresHa.js';
import { SENTINEL_MASTER_NAME, startRedisSentinel, type RedisSentinel } from './redisSentinel.js';
import { allocateTemporalPorts, createTemporalSchemas, registerNamespace, startTemporalCluster, type TemporalCluster } from './temporalCluster.js';
import { resolveTemporalBinaries } from './temporalServer.js';

export interface Cluster {
  dir: string;
  postgres: PostgresHa;
  redis: RedisSentinel;
  haproxy: Haproxy;
  temporal: TemporalCluster;
  /** Through HAProxy: always the primary. */
  databaseUrl(database: string): string;
  /** Through HAProxy: either frontend. */
  temporalAddress: string;
  /** REDIS_URL, REDIS_SENTINELS and REDIS_SENTINEL_NAME for the service. */
  redisEnv: Record<string, string>;
  uiUrl: string | undefined;
  stop(): Promise<void>;
  /** SIGKILLs whatever still runs, synchronously (the process is exiting). */
  lastResort(): void;
}

export interface ClusterProps {
  dir: string;
  log: (line: string) => void;
  namespace: string;
  /** The codec server the Web UI decodes payloads through; no UI when undefined. */
  ui?: { codecEndpoint: string; port?: number };
  /** Called with the means to stop what is started, before anything is. */
  onStopper?: (stopper: Pick<Cluster, 'stop' | 'lastResort'>) => void;
}

/** Until `SELECT 1` answers at `url`. */
export async function untilDatabaseAnswers(url: string, timeoutMs: number): Promise<void> {
  await until(
    async () => {
      const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 1_000 });
      try {
        await client.connect();
        await client.query('SELECT 1');
        return true;
      } catch {
        return false;
      } finally {
        await client.end().catch(() => undefined);
      }
    },
    `PostgreSQL not answering at ${url}`,
    timeoutMs,
    250,
  );
}

function uiDaemon(dir: string, binary: string, props: { port: number; temporalAddress: string; codecEndpoint: string; namespace: string }): Daemon {
  const root = path.join(dir, 'ui');
  mkdirSync(path.join(root, 'config'), { recursive: true });
  writeFileSync(
    path.join(root, 'config', 'development.yaml'),
    JSON.stringify({
      temporalGrpcAddress: props.temporalAddress,
      host: '127.0.0.1',
      port: props.port,
      enableUi: true,
      defaultNamespace: props.namespace,
      codec: { endpoint: props.codecEndpoint, passAccessToken: false, includeCredentials: false },
      auth: { enabled: false },
    }),
  );
  return daemon({
    name: 'temporal-ui',
    command: binary,
    args: ['--root', root, '--env', 'development', 'start'],
    logFile: path.join(dir, 'ui.log'),
    ready: async () => {
      try {
        return (await fetch(`http://127.0.0.1:${props.port}/`, { signal: AbortSignal.timeout(2_000) })).ok;
      } catch {
        return false;
      }
    },
  });
}

export async function startCluster(props: ClusterProps): Promise<Cluster> {
  mkdirSync(props.dir, { recursive: true });
  // PostgreSQL runs as `postgres`, which must reach its own directory inside this one.
  chmodSync(props.dir, 0o711);
  const daemons: Daemon[] = [];
  const stoppers: (() => Promise<void>)[] = [];
  let stopped = false;
  const stop = async () => {
    if (stopped) return;
    stopped = true;
    for (const stopOne of stoppers.splice(0).reverse()) await stopOne().catch((err: unknown) => props.log(`stopping: ${String(err)}`));
  };
  const lastResort = () => {
    for (const d of daemons) {
      try {
        const pid = d.pid();
        if (pid) process.kill(pid, 'SIGKILL');
      } catch {
        // Gone already.
      }
    }
  };
  props.onStopper?.({ stop, lastResort });
  try {
    const binaries = await resolveTemporalBinaries(props.log);
    const postgres = await startPostgresHa(props.dir);
    stoppers.push(() => postgres.stop());
    daemons.push(postgres.etcd, ...postgres.nodes.map((n) => n.patroni));
    const nodePorts = [await allocateTemporalPorts(), await allocateTemporalPorts()];
    const haproxy = await startHaproxy({
      dir: props.dir,
      postgres: postgres.nodes,
      temporalFrontends: nodePorts.map((ports, i) => ({ name: `temporal-${i + 1}`, port: ports.frontend.grpcPort })),
    });
    stoppers.push(() => haproxy.daemon.stop());
    daemons.push(haproxy.daemon);
    const databaseUrl = (database: string) => `postgres://postgres:postgres@127.0.0.1:${haproxy.postgresPort}/${database}`;
    await postgres.waitHealthy(90_000);
    await untilDatabaseAnswers(databaseUrl('postgres'), 30_000);
    props.log(`PostgreSQL: primary ${(await postgres.primary())?.name} with a synchronous standby, through HAProxy on 127.0.0.1:${haproxy.postgresPort}`);

    const redis = await startRedisSentinel(props.dir);
    stoppers.push(() => redis.stop());
    daemons.push(...redis.servers.map((s) => s.redis), ...redis.sentinels.map((s) => s.sentinel));
    await redis.waitHealthy(30_000);
    props.log(`Redis: master 127.0.0.1:${await redis.masterPort()} with a replica, Sentinels ${redis.sentinelList}`);

    await createTemporalSchemas(binaries, { host: '127.0.0.1', port: haproxy.postgresPort });
    const temporalAddress = `127.0.0.1:${haproxy.temporalPort}`;
    const temporal = await startTemporalCluster({ dir: props.dir, binaries, nodePorts, postgresPort: haproxy.postgresPort, frontendAddress: temporalAddress });
    stoppers.push(() => temporal.stop());
    daemons.push(...temporal.nodes.map((n) => n.server));
    await registerNamespace(temporalAddress, props.namespace);
    props.log(`Temporal: ${temporal.nodes.map((n) => `${n.name} on 127.0.0.1:${n.frontendPort}`).join(', ')}, through HAProxy on ${temporalAddress}`);

    let uiUrl: string | undefined;
    if (props.ui) {
      const port = props.ui.port ?? (await freePort());
      const ui = uiDaemon(props.dir, binaries.uiServer, { port, temporalAddress, codecEndpoint: props.ui.codecEndpoint, namespace: props.namespace });
      await ui.start();
      stoppers.push(() => ui.stop());
      daemons.push(ui);
      uiUrl = `http://127.0.0.1:${port}`;
    }
    return {
      dir: props.dir,
      postgres,
      redis,
      haproxy,
      temporal,
      databaseUrl,
      temporalAddress,
      // REDIS_URL gives only the password and database here: the host is the master the Sentinels name.
      redisEnv: { REDIS_URL: `redis://${SENTINEL_MASTER_NAME}`, REDIS_SENTINELS: redis.sentinelList, REDIS_SENTINEL_NAME: SENTINEL_MASTER_NAME },
      uiUrl,
      stop,
      lastResort,
    };
  } catch (err) {
    await stop();
    throw err;
  }
}
