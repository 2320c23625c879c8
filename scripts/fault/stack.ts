/**
 * Everything the fault run stops and kills, started fresh and of its own: a PostgreSQL cluster and a
 * redis-server in a temporary directory on free loopback ports, a Temporal dev server, the database
 * migrated, the workflows bundled, and the api and the worker as separate processes (`src/main.ts --role …`, through tsx).
 * `close` stops all of it, and `lastResort` does what it can synchronously when the process is exiting.
 */
import { mkdtemp, rm } from 'node:fs/promises';
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

export interface FaultStack {
  apiUrl: string;
  databaseUrl: string;
  postgres: OwnPostgres;
  redis: OwnRedis;
  temporal: TemporalDevServer & { pid: number };
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
export async function startFaultStack(props: { clients: number; log: (line: string) => void; onStopper: (stopper: StackStopper) => void }): Promise<FaultStack> {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'domain-service-fault-'));
  const cleanups: (() => Promise<void> | void)[] = [];
  let services: ReturnType<typeof serviceProcesses> | undefined;
  let postgres: OwnPostgres | undefined;
  let redis: OwnRedis | undefined;
  let temporal: TemporalDevServer | undefined;
  let closed = false;
  const lastResort = () => {
    if (closed) return;
    closed = true;
    services?.killAll();
    for (const pid of [temporal?.pid, redis?.pid()]) {
      try {
        if (pid) process.kill(pid, 'SIGKILL'); // a stopped (SIGSTOP) process dies of SIGKILL too
      } catch {
        // Already gone.
      }
    }
    postgres?.destroy();
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
    postgres = startOwnPostgres(dir, await freePort());
    cleanups.push(() => postgres!.destroy());
    redis = await startOwnRedis(dir, await freePort());
    cleanups.push(() => redis!.destroy());
    const cliPath = await resolveTemporalCli(props.log);
    if (!cliPath) throw new Error('The fault run freezes the Temporal dev server, so it needs the Temporal CLI (npm run temporal-cli)');
    temporal = await startOnFreePort((port) => startTemporalDevServer({ cliPath, port, namespace: 'default', logFile: path.join(dir, 'temporal.log') }));
    cleanups.push(() => {
      if (temporal?.pid) process.kill(temporal.pid, 'SIGCONT');
      return temporal?.stop();
    });
    props.log(`own PostgreSQL on 127.0.0.1:${postgres.port}, own Redis at ${redis.url}, Temporal at ${temporal.address}`);

    await ensureDatabase(postgres.url);
    const logger = createLogger({ logLevel: 'warn' });
    await migrateUp(postgres.url, logger);
    // Bundled once: each restarted worker loads it, as a deployment's does, instead of bundling again.
    const workflowBundle = path.join(dir, 'workflow-bundle.js');
    await writeWorkflowBundle(workflowBundle, props.log);
    const apiPort = await freePort();
    const env: Record<string, string> = {
      NODE_ENV: 'development',
      LOG_LEVEL: 'info',
      HOST: '127.0.0.1',
      PORT: String(apiPort),
      DATABASE_URL: postgres.url,
      REDIS_URL: redis.url,
      TEMPORAL_ADDRESS: temporal.address,
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

    services = serviceProcesses({ env, logDir: dir, log: props.log });
    await Promise.all([services.start('api'), services.start('worker')]);
    return {
      apiUrl: `http://127.0.0.1:${apiPort}`,
      databaseUrl: postgres.url,
      postgres,
      redis,
      temporal: { ...temporal, pid: temporal.pid! },
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
