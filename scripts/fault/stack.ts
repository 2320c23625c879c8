/**
 * Everything the fault run stops and kills, started fresh and of its own: a PostgreSQL cluster and a
 * redis-server in a temporary directory on free loopback ports, a Temporal dev server, the database
 * migrated, the workflows bundled, and the api and the worker as separate processes (`src/main.ts --role …`, through tsx).
 * `close` stops all of it, and `lastResort` does what it can synchronously when the process is exiting.
 */
import { chmod, mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { loadConfig } from '../../src/config.js';
import { closeDeps, createDeps } from '../../src/deps.js';
import { ensureDatabase, migrateUp } from '../../src/db/migrate.js';
import { createLogger } from '../../src/logger.js';
import { resolveTemporalCli } from '../lib/temporalCli.js';
import { freePort, startOnFreePort, startTemporalDevServer, type TemporalDevServer } from '../lib/temporalDevServer.js';
import { benchCustomer, type BenchCustomer } from '../../bench/lib/customer.js';
import { startOwnPostgres, type OwnPostgres } from './postgres.js';
import { startOwnRedis, type OwnRedis } from './redis.js';
import { serviceProcesses, type Crash, type Role } from './serviceProcesses.js';
import { writeWorkflowBundle } from '../../src/worker/workflowBundle.js';
import { startTcpProxy, type TcpProxy } from '../../test/support/tcpProxy.js';
import { startCluster, type Cluster } from '../lib/cluster/index.js';

/** The single servers the default run stops and freezes. */
export interface DevEngines {
  postgres: OwnPostgres;
  redis: OwnRedis;
  temporal: TemporalDevServer & { pid: number };
}

/** `--production`: the cluster of docs/operations.md, and the worker's link to Temporal, which can be cut. */
export interface ProductionEngines {
  cluster: Cluster;
  workerLink: TcpProxy;
}

export interface FaultStack {
  apiUrl: string;
  databaseUrl: string;
  engines: { dev: DevEngines } | { production: ProductionEngines };
  customers: BenchCustomer[];
  /** SIGKILLs the api (or the worker) and starts another on the same port and queue; resolves with the ms until it served. */
  killAndRestart: (role: Role) => Promise<number>;
  /** The api or the worker ending without being killed (they are started again at once). */
  crashes: Crash[];
  /** From each SIGKILL of the api until its successor listened, in ms since the epoch. */
  apiDown: { from: number; to: number }[];
  /** Where the servers' output went. */
  dir: string;
  /** Stops everything; `keepDir` leaves the logs (and data) behind for a look after a failed run. */
  close: (keepDir?: boolean) => Promise<void>;
  lastResort: () => void;
}

/** What each customer starts with in test mode, credited straight into the ledger. */
export const INITIAL_CREDIT = 1_000_000;

/** The only proxy the api believes: the clients themselves, each naming its own address. */
export const TRUSTED_PROXY = '127.0.0.1/32';

export type StackStopper = Pick<FaultStack, 'close' | 'lastResort'>;

/** `onStopper` gets the means to stop what is started before anything is, so Ctrl-C during start-up stops it too. */
interface Engines {
  databaseUrl: string;
  env: Record<string, string>;
  /** Environment only the worker gets (its own way to Temporal). */
  workerEnv: Record<string, string>;
  engines: FaultStack['engines'];
}

async function devEngines(dir: string, log: (line: string) => void, cleanups: (() => Promise<void> | void)[], pids: (number | undefined)[], destroyers: (() => void)[]): Promise<Engines> {
  const postgres = startOwnPostgres(dir, await freePort());
  destroyers.push(() => postgres.destroy());
  cleanups.push(() => postgres.destroy());
  const redis = await startOwnRedis(dir, await freePort());
  cleanups.push(() => redis.destroy());
  pids.push(redis.pid());
  const cliPath = await resolveTemporalCli(log);
  if (!cliPath) throw new Error('The fault run freezes the Temporal dev server, so it needs the Temporal CLI (npm run temporal-cli)');
  const temporal = await startOnFreePort((port) => startTemporalDevServer({ cliPath, port, namespace: 'default', logFile: path.join(dir, 'temporal.log') }));
  pids.push(temporal.pid);
  cleanups.push(() => {
    if (temporal.pid) process.kill(temporal.pid, 'SIGCONT');
    return temporal.stop();
  });
  log(`own PostgreSQL on 127.0.0.1:${postgres.port}, own Redis at ${redis.url}, Temporal at ${temporal.address}`);
  return {
    databaseUrl: postgres.url,
    env: { DATABASE_URL: postgres.url, REDIS_URL: redis.url, TEMPORAL_ADDRESS: temporal.address },
    workerEnv: {},
    engines: { dev: { postgres, redis, temporal: { ...temporal, pid: temporal.pid! } } },
  };
}

async function productionEngines(dir: string, log: (line: string) => void, cleanups: (() => Promise<void> | void)[], destroyers: (() => void)[]): Promise<Engines> {
  // PostgreSQL runs as `postgres` and must pass through this directory to its own.
  await chmod(dir, 0o711);
  const cluster = await startCluster({ dir: path.join(dir, 'cluster'), log, namespace: 'default', onStopper: (s) => destroyers.push(s.lastResort) });
  cleanups.push(() => cluster.stop());
  const [host, port] = cluster.temporalAddress.split(':');
  const workerLink = await startTcpProxy({ host: host!, port: Number(port) });
  cleanups.push(() => workerLink.close());
  const databaseUrl = cluster.databaseUrl('domains_fault');
  return {
    databaseUrl,
    env: { DATABASE_URL: databaseUrl, TEMPORAL_ADDRESS: cluster.temporalAddress, ...cluster.redisEnv },
    workerEnv: { TEMPORAL_ADDRESS: `127.0.0.1:${workerLink.port}` },
    engines: { production: { cluster, workerLink } },
  };
}

export async function startFaultStack(props: { clients: number; production: boolean; log: (line: string) => void; onStopper: (stopper: StackStopper) => void }): Promise<FaultStack> {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'domain-service-fault-'));
  const cleanups: (() => Promise<void> | void)[] = [];
  let services: ReturnType<typeof serviceProcesses> | undefined;
  const pids: (number | undefined)[] = [];
  const destroyers: (() => void)[] = [];
  let closed = false;
  const lastResort = () => {
    if (closed) return;
    closed = true;
    services?.killAll();
    for (const pid of pids) {
      try {
        if (pid) process.kill(pid, 'SIGKILL'); // a stopped (SIGSTOP) process dies of SIGKILL too
      } catch {
        // Already gone.
      }
    }
    for (const destroy of destroyers) destroy();
  };
  const close = async (keepDir = false) => {
    if (closed) return;
    closed = true;
    await services?.stopAll();
    for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
    if (!keepDir) await rm(dir, { recursive: true, force: true });
  };
  props.onStopper({ close, lastResort });
  try {
    const engines = props.production ? await productionEngines(dir, props.log, cleanups, destroyers) : await devEngines(dir, props.log, cleanups, pids, destroyers);
    await ensureDatabase(engines.databaseUrl);
    const logger = createLogger({ logLevel: 'warn' });
    await migrateUp(engines.databaseUrl, logger);
    // Bundled once: each restarted worker loads it, as a deployment's does, instead of bundling again.
    const workflowBundle = path.join(dir, 'workflow-bundle.js');
    await writeWorkflowBundle(workflowBundle, props.log);
    const apiPort = await freePort();
    const env: Record<string, string> = {
      NODE_ENV: 'development',
      LOG_LEVEL: 'info',
      HOST: '127.0.0.1',
      PORT: String(apiPort),
      ...engines.env,
      TEMPORAL_TASK_QUEUE: 'fault',
      // One data dir for all: the development signing key and key-hash secret are shared, as on a volume.
      DATA_DIR: path.join(dir, 'app-data'),
      TRUST_PROXY: TRUSTED_PROXY,
      WORKFLOW_BUNDLE: workflowBundle,
    };
    // The customers are written straight to the database, with the api's own secrets (test/support/factories.ts).
    const deps = await createDeps(loadConfig({ ...env, LOG_LEVEL: 'warn' }), logger);
    const customers: BenchCustomer[] = [];
    try {
      for (let i = 0; i < props.clients; i += 1) customers.push(await benchCustomer(deps, `fault-${i}`, INITIAL_CREDIT));
    } finally {
      await closeDeps(deps);
    }

    services = serviceProcesses({ env, roleEnv: { worker: engines.workerEnv }, logDir: dir, log: props.log });
    await Promise.all([services.start('api'), services.start('worker')]);
    return {
      apiUrl: `http://127.0.0.1:${apiPort}`,
      databaseUrl: engines.databaseUrl,
      engines: engines.engines,
      customers,
      apiDown: services.apiDown,
      crashes: services.crashes,
      killAndRestart: (role) => services!.killAndRestart(role),
      dir,
      close,
      lastResort,
    };
  } catch (err) {
    await close(true);
    props.log(`logs kept in ${dir}`);
    throw err;
  }
}
