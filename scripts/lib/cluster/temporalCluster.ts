/**
 * A Temporal cluster of two server processes, each running the frontend, history, matching and worker
 * services, their membership on loopback ports, persistence and visibility in PostgreSQL (through
 * HAProxy, so they follow the primary), the schemas made by temporal-sql-tool from the module's own
 * files. The `default` namespace and our search attributes are registered once both serve.
 */
import { execFile } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { promisify } from 'node:util';
import { Connection } from '@temporalio/client';
import { msToTs } from '@temporalio/common/lib/time.js';
import { ensureSearchAttributes } from '../../../src/temporal/client.js';
import { DEV_SERVER_DYNAMIC_CONFIG, freePort } from '../temporalDevServer.js';
import { daemon, listening, type Daemon } from './daemon.js';
import type { TemporalBinaries } from './temporalServer.js';

const SERVICES = ['frontend', 'history', 'matching', 'worker'] as const;

export interface TemporalNode {
  name: string;
  frontendPort: number;
  server: Daemon;
}

export interface TemporalCluster {
  nodes: TemporalNode[];
  stop(): Promise<void>;
}

type Ports = Record<(typeof SERVICES)[number], { grpcPort: number; membershipPort: number }> & { frontendHttp: number };

/**
 * A free loopback port below 32768: Temporal stores membership ports in a `smallint` column
 * (cluster_membership.rpc_port), so an ephemeral port (32768 and up on Linux) is refused there.
 */
const handedOut = new Set<number>();

async function freeSmallintPort(): Promise<number> {
  for (let attempt = 0; attempt < 50; attempt += 1) {
    const port = 20_000 + Math.floor(Math.random() * 12_000);
    // Free now, but not yet bound by the node it is for: never hand it out twice.
    if (handedOut.has(port)) continue;
    const free = await new Promise<boolean>((resolve) => {
      const server = net.createServer();
      server.once('error', () => resolve(false));
      server.listen(port, '127.0.0.1', () => server.close(() => resolve(true)));
    });
    if (free) {
      handedOut.add(port);
      return port;
    }
  }
  throw new Error('no free loopback port below 32768');
}

export async function allocateTemporalPorts(): Promise<Ports> {
  const pair = async () => ({ grpcPort: await freePort(), membershipPort: await freeSmallintPort() });
  return { frontend: await pair(), history: await pair(), matching: await pair(), worker: await pair(), frontendHttp: await freePort() };
}

/** `temporal-sql-tool`: create both databases, then set them up and update them to the module's newest schema. */
export async function createTemporalSchemas(binaries: TemporalBinaries, postgres: { host: string; port: number }): Promise<void> {
  const run = promisify(execFile);
  const base = ['--plugin', 'postgres12', '--ep', postgres.host, '-p', String(postgres.port), '-u', 'postgres', '--pw', 'postgres'];
  for (const [db, schema] of [['temporal', 'temporal'], ['temporal_visibility', 'visibility']] as const) {
    await run(binaries.sqlTool, [...base, '--db', db, 'create-database']).catch((err: { stderr?: string }) => {
      if (!/already exists/.test(err.stderr ?? '')) throw err;
    });
    await run(binaries.sqlTool, [...base, '--db', db, 'setup-schema', '-v', '0.0']);
    await run(binaries.sqlTool, [...base, '--db', db, 'update-schema', '-d', path.join(binaries.schemaDir, schema, 'versioned')]);
  }
}

function nodeConfig(props: { ports: Ports; postgresPort: number; frontendAddress: string; dynamicConfig: string; logLevel: string }) {
  const sql = (databaseName: string, maxConns: number) => ({
    sql: { pluginName: 'postgres12', databaseName, connectAddr: `127.0.0.1:${props.postgresPort}`, connectProtocol: 'tcp', user: 'postgres', password: 'postgres', maxConns, maxIdleConns: maxConns, maxConnLifetime: '1h' },
  });
  const rpc = (service: (typeof SERVICES)[number]) => ({ ...props.ports[service], bindOnIP: '127.0.0.1', ...(service === 'frontend' ? { httpPort: props.ports.frontendHttp } : {}) });
  return {
    log: { stdout: true, level: props.logLevel },
    persistence: { defaultStore: 'default', visibilityStore: 'visibility', numHistoryShards: 4, datastores: { default: sql('temporal', 20), visibility: sql('temporal_visibility', 5) } },
    global: { membership: { maxJoinDuration: '30s', broadcastAddress: '127.0.0.1' } },
    services: Object.fromEntries(SERVICES.map((service) => [service, { rpc: rpc(service) }])),
    clusterMetadata: {
      enableGlobalNamespace: false,
      failoverVersionIncrement: 10,
      masterClusterName: 'active',
      currentClusterName: 'active',
      clusterInformation: { active: { enabled: true, initialFailoverVersion: 1, rpcName: 'frontend', rpcAddress: props.frontendAddress } },
    },
    dcRedirectionPolicy: { policy: 'noop' },
    archival: { history: { state: 'disabled' }, visibility: { state: 'disabled' } },
    namespaceDefaults: { archival: { history: { state: 'disabled' }, visibility: { state: 'disabled' } } },
    // The worker service (schedules, system workflows) reaches the frontends through the same front.
    publicClient: { hostPort: props.frontendAddress },
    dynamicConfigClient: { filepath: props.dynamicConfig, pollInterval: '10s' },
  };
}

/**
 * As the dev server does: search attributes are read fresh, so the ones registered just now are
 * usable at once instead of after the cache's refresh (a minute); the persistence rate limits are
 * raised to pay for it, in the dev server's proportion. And as docs/operations.md (The parts and how
 * they scale) asks of a cluster: one task queue partition and activities handed back eagerly
 * (scripts/lib/temporalDevServer.ts says why).
 */
const DYNAMIC_CONFIG = [
  ...Object.entries(DEV_SERVER_DYNAMIC_CONFIG).flatMap(([key, value]) => [`${key}:`, `  - value: ${JSON.stringify(value)}`]),
  'system.forceSearchAttributesCacheRefreshOnRead:',
  '  - value: true',
  'frontend.persistenceMaxQPS:',
  '  - value: 10000',
  'history.persistenceMaxQPS:',
  '  - value: 45000',
  '',
].join('\n');

export async function startTemporalCluster(props: {
  dir: string;
  binaries: TemporalBinaries;
  nodePorts: Ports[];
  postgresPort: number;
  /** host:port of the front balancing the frontends. */
  frontendAddress: string;
  logLevel?: string;
}): Promise<TemporalCluster> {
  const dynamicConfig = path.join(props.dir, 'temporal-dynamicconfig.yaml');
  writeFileSync(dynamicConfig, DYNAMIC_CONFIG);
  const nodes: TemporalNode[] = props.nodePorts.map((ports, i) => {
    const name = `temporal-${i + 1}`;
    const home = path.join(props.dir, name);
    mkdirSync(home, { recursive: true });
    const configFile = path.join(home, 'config.yaml');
    // JSON is YAML.
    writeFileSync(configFile, JSON.stringify(nodeConfig({ ports, postgresPort: props.postgresPort, frontendAddress: props.frontendAddress, dynamicConfig, logLevel: props.logLevel ?? 'warn' }), null, 2));
    const server = daemon({
      name,
      command: props.binaries.server,
      args: ['--config-file', configFile, '--allow-no-auth', 'start', ...SERVICES.flatMap((service) => ['--service', service])],
      logFile: path.join(home, 'server.log'),
      ready: listening(ports.frontend.grpcPort),
      readyTimeoutMs: 120_000,
    });
    return { name, frontendPort: ports.frontend.grpcPort, server };
  });
  const stop = async () => {
    await Promise.all(nodes.map((node) => node.server.stop()));
  };
  try {
    // One after the other: on a fresh database the first writes the cluster's metadata, and two at
    // once race to insert it (the loser exits on the duplicate key).
    for (const node of nodes) await node.server.start();
  } catch (err) {
    await stop();
    throw err;
  }
  return { nodes, stop };
}

/** Registers `namespace` (one day's retention) and our search attributes, and waits until it is described. */
export async function registerNamespace(address: string, namespace: string, timeoutMs = 60_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  let lastError: unknown;
  while (Date.now() < deadline) {
    try {
      const connection = await Connection.connect({ address, connectTimeout: 2_000 });
      try {
        await connection.workflowService.registerNamespace({ namespace, workflowExecutionRetentionPeriod: msToTs('1 day') }).catch((err: { code?: number }) => {
          if (err.code !== 6) throw err; // ALREADY_EXISTS: a restart of the stack on kept data
        });
        await ensureSearchAttributes(connection, namespace);
        await connection.workflowService.describeNamespace({ namespace });
        return;
      } finally {
        await connection.close();
      }
    } catch (err) {
      lastError = err;
      await new Promise((resolve) => setTimeout(resolve, 500));
    }
  }
  throw new Error(`namespace ${namespace} not registered on ${address} within ${timeoutMs} ms: ${String(lastError)}`);
}
