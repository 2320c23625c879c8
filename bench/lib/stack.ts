/**
 * Everything the bench runs against, started fresh: a Temporal dev server (unless TEMPORAL_ADDRESS
 * names one), PowerDNS, the compiled api and worker as `npm start` runs them, and the floors
 * (bench/servers/). PostgreSQL and Redis are the machine's, as for `npm run dev`; the bench has its own
 * database (`domains_bench`, made afresh at each start) and task queues. `BENCH_ENGINE=cluster` runs it
 * on the production topology instead (scripts/lib/cluster/: PostgreSQL under Patroni behind HAProxy,
 * Redis with Sentinels, a two-process Temporal cluster), started here and stopped at the end.
 */
import { spawnSync } from 'node:child_process';
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { Client, Connection } from '@temporalio/client';
import { loadConfig, type Config } from '../../src/config.js';
import { closeDeps, createDeps, type AppDeps } from '../../src/deps.js';
import { migrateUp } from '../../src/db/migrate.js';
import { freshDatabase } from './database.js';
import { createLogger } from '../../src/logger.js';
import { installTemporalRuntime } from '../../src/temporal/runtime.js';
import { resolveTemporalCli } from '../../scripts/lib/temporalCli.js';
import { freePort, startOnFreePort, startTemporalDevServer, type TemporalDevServer } from '../../scripts/lib/temporalDevServer.js';
import { startPowerDns, type PowerDns } from '../../test/support/powerdns.js';
import { REPO_ROOT } from '../../test/support/processes.js';
import { startCompiled, stopAll, waitForLog, type BenchProcess } from './processes.js';
import { BUILT_WORKFLOW_BUNDLE } from '../../src/worker/workflowBundle.js';
import { devEnvironment } from '../../scripts/lib/devEnvironment.js';
import { startCluster } from '../../scripts/lib/cluster/index.js';

export interface Stack {
  env: Record<string, string>;
  config: Config;
  /** In the bench's process: the database, the development identity (session tokens), key hashing. */
  deps: AppDeps;
  pdns: PowerDns;
  api: { url: string; metricsUrl: string; process: BenchProcess };
  workers: BenchProcess[];
  floors: { bare: string; pgRedis: string };
  layers: Record<'neither' | 'rateLimiter' | 'idempotency' | 'both', string>;
  /** A client of the Temporal server, for the same-shape workflow floor on `floorTaskQueue`. */
  temporal: Client;
  /** The Temporal dev server's process, when the bench started it (its memory in the scale rows). */
  temporalPid: number | undefined;
  floorTaskQueue: string;
  startWorker(): Promise<BenchProcess>;
  /**
   * Stops the api and every worker and starts the api and one worker again with `env` (`env` above
   * is what the stack started with): `api` and `workers` then name the new processes.
   */
  restart(env: Record<string, string>): Promise<void>;
  /** Where a process the bench starts for a scenario writes its output, beside the stack's own logs. */
  logFile(name: string): string;
  close(): Promise<void>;
}

const LOG_DIR = path.join(REPO_ROOT, '.data/bench/logs');

function run(command: string, args: string[]): void {
  const result = spawnSync(command, args, { cwd: REPO_ROOT, encoding: 'utf8' });
  if (result.status !== 0) throw new Error(`${command} ${args.join(' ')} failed:\n${result.stdout}\n${result.stderr}`);
}

/**
 * What the stack sets so that no limit binds on the load it measures. A development deployment (`npm
 * run dev`, scripts/lib/devEnvironment.ts) has none of it: `asDeployed` takes it out again.
 */
const UNBOUND = {
  // The limiter runs and does all its work; its limits are scaled past what the bench can send.
  RATE_LIMIT_SCALE: '100000',
  REGISTRAR_CHECK_PER_MINUTE: '100000',
  WEBHOOK_HOST_PER_MINUTE: '1000000',
  // Any http receiver, such as the bench's own on loopback, for every mode.
  WEBHOOK_ALLOW_PRIVATE: 'true',
};

/** The stack's `env` with the limits and webhook destinations of a development deployment, and `more`. */
export function asDeployed(env: Record<string, string>, more: Record<string, string> = {}): Record<string, string> {
  const deployed = Object.fromEntries(Object.entries(env).filter(([name]) => !(name in UNBOUND)));
  return devEnvironment({ ...deployed, ...more }) as Record<string, string>;
}

function build(): void {
  // The api's own build (tsconfig.build.json) plus the floors, into the same dist/, then the workers'
  // workflow bundle from it, as `npm run build` makes them (a fresh clone has neither).
  run('npx', ['tsc', '-p', 'tsconfig.bench.json']);
  run('npm', ['run', '--silent', 'build:workflows']);
}

async function jsonLine<T>(proc: BenchProcess): Promise<T> {
  return JSON.parse((await waitForLog(proc, /^\{.*\}$/m, 60_000))[0]) as T;
}

/**
 * Starts everything the bench measures. When any part fails to start, what was started is stopped
 * before the error goes on, so a failed bench leaves no server behind and its process can end.
 */
export async function startStack(): Promise<Stack> {
  build();
  const startedHere: Array<() => Promise<unknown>> = [];
  try {
    return await startParts(startedHere);
  } catch (err) {
    await stopInReverse(startedHere);
    throw err;
  }
}

/** Stops what was started, the last first, each once; one that fails to stop does not keep the rest running. */
async function stopInReverse(stops: Array<() => Promise<unknown>>): Promise<void> {
  for (const stop of stops.splice(0).reverse()) await stop().catch((err: unknown) => console.error(err));
}

async function startParts(startedHere: Array<() => Promise<unknown>>): Promise<Stack> {
  await mkdir(LOG_DIR, { recursive: true });
  const stamp = new Date().toISOString().replace(/[:.]/g, '-');
  const logFile = (name: string) => path.join(LOG_DIR, `${stamp}-${name}.log`);
  let databaseUrl = process.env.BENCH_DATABASE_URL ?? 'postgres://127.0.0.1:5432/domains_bench';
  let redisEnv: Record<string, string> = { REDIS_URL: process.env.REDIS_URL ?? 'redis://127.0.0.1:6379' };
  installTemporalRuntime(createLogger({ logLevel: 'error' }), { level: 'ERROR' });
  let temporalServer: TemporalDevServer | undefined;
  let temporalAddress = process.env.TEMPORAL_ADDRESS;
  if (process.env.BENCH_ENGINE === 'cluster') {
    const dir = await mkdtemp(path.join(os.tmpdir(), 'domain-service-bench-cluster-'));
    const cluster = await startCluster({ dir, log: (line) => console.error(line), namespace: 'default' }).catch((err: unknown) => {
      console.error(`the cluster's logs are in ${dir}`);
      throw err;
    });
    startedHere.push(() => rm(dir, { recursive: true, force: true }));
    startedHere.push(() => cluster.stop());
    databaseUrl = cluster.databaseUrl('domains_bench');
    redisEnv = cluster.redisEnv;
    temporalAddress = cluster.temporalAddress;
  } else if (!temporalAddress) {
    const cliPath = await resolveTemporalCli((line) => console.error(line));
    const server = await startOnFreePort((port) => startTemporalDevServer({ cliPath, port, namespace: 'default', logFile: logFile('temporal') }));
    startedHere.push(() => server.stop());
    temporalServer = server;
    temporalAddress = server.address;
  }
  const pdns = await startPowerDns();
  startedHere.push(() => pdns.close());
  await freshDatabase(databaseUrl);

  const env: Record<string, string> = {
    NODE_ENV: 'development',
    LOG_LEVEL: 'info',
    HOST: '127.0.0.1',
    DATABASE_URL: databaseUrl,
    ...redisEnv,
    TEMPORAL_ADDRESS: temporalAddress,
    TEMPORAL_TASK_QUEUE: 'bench',
    DATA_DIR: path.join(REPO_ROOT, '.data/bench'),
    DNS_PROVIDER_URL: pdns.apiUrl,
    DNS_PROVIDER_TOKEN: pdns.apiKey,
    ...UNBOUND,
    // Spans of the api and workers to a receiver of the caller's, to see where a request's time goes (docs/bench.md).
    ...(process.env.OTEL_EXPORTER_OTLP_ENDPOINT ? { OTEL_EXPORTER_OTLP_ENDPOINT: process.env.OTEL_EXPORTER_OTLP_ENDPOINT } : {}),
    // The worker's sticky cache, to compare sizes of it under idle lifecycles (docs/bench.md).
    ...(process.env.WORKER_MAX_CACHED_WORKFLOWS ? { WORKER_MAX_CACHED_WORKFLOWS: process.env.WORKER_MAX_CACHED_WORKFLOWS } : {}),
  };
  const config = loadConfig({ ...env, LOG_LEVEL: 'error' });
  await migrateUp(databaseUrl, createLogger(config));
  const deps = await createDeps(config, createLogger(config));
  startedHere.push(() => closeDeps(deps));

  startedHere.push(stopAll);
  // Each process started has a log of its own, so that a restarted one is not found ready by its predecessor's lines.
  let apisStarted = 0;
  let workersStarted = 0;
  const startApi = async (apiEnv: Record<string, string>) => {
    const [port, metricsPort] = [await freePort(), await freePort()];
    apisStarted += 1;
    const name = apisStarted === 1 ? 'api' : `api-${apisStarted}`;
    const proc = startCompiled({ name, script: 'dist/src/main.js', args: ['--role', 'api'], env: { ...apiEnv, PORT: String(port), METRICS_PORT: String(metricsPort) }, logFile: logFile(name) });
    return { url: `http://127.0.0.1:${port}`, metricsUrl: `http://127.0.0.1:${metricsPort}/metrics`, process: proc };
  };
  const api = await startApi(env);
  const workers: BenchProcess[] = [];
  let workerEnv = env;
  const startWorker = async () => {
    workersStarted += 1;
    const worker = startCompiled({
      name: `worker ${workersStarted}`,
      script: 'dist/src/main.js',
      args: ['--role', 'worker'],
      // The build's bundle, as the image's workers load it.
      env: { ...workerEnv, PORT: '0', METRICS_PORT: String(await freePort()), WORKFLOW_BUNDLE: BUILT_WORKFLOW_BUNDLE },
      logFile: logFile(`worker-${workersStarted}`),
    });
    workers.push(worker);
    await waitForLog(worker, /"msg":"worker polling"/);
    return worker;
  };
  const floorsProcess = startCompiled({ name: 'floors', script: 'dist/bench/servers/floors.js', env, logFile: logFile('floors') });
  const layersProcess = startCompiled({ name: 'layers', script: 'dist/bench/servers/layers.js', env: { ...env, LOG_LEVEL: 'info' }, logFile: logFile('layers') });
  const floorTaskQueue = 'bench-floor';
  const floorWorker = startCompiled({ name: 'same-shape worker', script: 'dist/bench/servers/sameShapeWorker.js', env: { ...env, BENCH_FLOOR_TASK_QUEUE: floorTaskQueue }, logFile: logFile('floor-worker') });

  const [floors, layers] = await Promise.all([jsonLine<Stack['floors']>(floorsProcess), jsonLine<Stack['layers']>(layersProcess), jsonLine(floorWorker)]);
  await waitForLog(api.process, /"msg":"api listening"/);
  await startWorker();
  const connection = await Connection.connect({ address: temporalAddress });
  startedHere.push(() => connection.close());
  const temporal = new Client({ connection, namespace: 'default' });

  const stack: Stack = {
    env,
    config,
    deps,
    pdns,
    api,
    workers,
    floors,
    layers,
    temporal,
    temporalPid: temporalServer?.pid,
    floorTaskQueue,
    startWorker,
    restart: async (newEnv) => {
      await Promise.all([stack.api.process.stop(), ...workers.splice(0).map((worker) => worker.stop())]);
      stack.api = await startApi(newEnv);
      workerEnv = newEnv;
      await Promise.all([waitForLog(stack.api.process, /"msg":"api listening"/), startWorker()]);
    },
    logFile,
    close: () => stopInReverse(startedHere),
  };
  return stack;
}
