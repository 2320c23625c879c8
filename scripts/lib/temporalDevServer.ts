import { spawn, type ChildProcess } from 'node:child_process';
import { createWriteStream } from 'node:fs';
import net from 'node:net';
import { Connection } from '@temporalio/client';
import { TestWorkflowEnvironment } from '@temporalio/testing';
import { SEARCH_ATTRIBUTES, searchAttributeCliArgs } from '../../src/temporal/searchAttributes.js';

export interface TemporalDevServer {
  address: string;
  uiUrl: string | undefined;
  /** The server's process, when this module started it (the fault run freezes it with SIGSTOP). */
  pid: number | undefined;
  /** How the server's process ended before `stop` was called (`code 2`, `signal SIGKILL`), if it did. */
  endedEarly(): string | undefined;
  stop(): Promise<void>;
}

export interface StartDevServerProps {
  /** The CLI binary; undefined falls back to the SDK's download (needs internet). */
  cliPath: string | undefined;
  port: number;
  /** Undefined runs headless (no Web UI). */
  uiPort?: number;
  namespace: string;
  /** SQLite file that keeps state across restarts; undefined keeps it in memory. */
  dbFile?: string;
  /** The codec server the Web UI decodes payloads through (`--ui-codec-endpoint`). */
  uiCodecEndpoint?: string;
  /** Where the server's own output goes; undefined discards it. */
  logFile?: string;
  readyTimeoutMs?: number;
}

export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.unref();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as net.AddressInfo;
      server.close(() => resolve(port));
    });
  });
}

/**
 * Starts a server on a free port, trying again on another port when it fails: the dev server also
 * binds ports derived from `--port`, which another process may have taken in the meantime.
 */
export async function startOnFreePort<T>(start: (port: number) => Promise<T>, attempts = 3): Promise<T> {
  for (let attempt = 1; ; attempt += 1) {
    try {
      return await start(await freePort());
    } catch (err) {
      if (attempt >= attempts) throw err;
    }
  }
}

export function portOpen(port: number, host = '127.0.0.1'): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = net.connect({ port, host });
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}

/** Waits until the frontend answers and the namespace exists. */
export async function waitForTemporal(address: string, namespace: string, timeoutMs: number, child?: ChildProcess): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  let lastError: unknown;
  while (Date.now() < deadline) {
    if (child && child.exitCode !== null) throw new Error(`Temporal dev server exited with code ${child.exitCode}`);
    try {
      const connection = await Connection.connect({ address, connectTimeout: 1_000 });
      try {
        await connection.workflowService.describeNamespace({ namespace });
        return;
      } finally {
        await connection.close();
      }
    } catch (err) {
      lastError = err;
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
  }
  throw new Error(`Temporal at ${address} was not ready within ${timeoutMs} ms: ${String(lastError)}`);
}

function stopChild(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    const kill = setTimeout(() => child.kill('SIGKILL'), 10_000);
    child.once('exit', () => {
      clearTimeout(kill);
      resolve();
    });
    child.kill('SIGTERM');
  });
}

async function startWithSdkDownload(props: StartDevServerProps): Promise<TemporalDevServer> {
  const env = await TestWorkflowEnvironment.createLocal({
    server: {
      ip: '127.0.0.1',
      port: props.port,
      namespace: props.namespace,
      searchAttributes: SEARCH_ATTRIBUTES,
      ...(props.uiPort ? { ui: true, uiPort: props.uiPort } : {}),
      extraArgs: [...devServerDynamicConfigArgs(), ...(props.uiPort && props.uiCodecEndpoint ? ['--ui-codec-endpoint', props.uiCodecEndpoint] : [])],
      ...(props.dbFile ? { dbFilename: props.dbFile } : {}),
    },
  });
  return {
    address: `127.0.0.1:${props.port}`,
    uiUrl: props.uiPort ? `http://127.0.0.1:${props.uiPort}` : undefined,
    pid: undefined,
    endedEarly: () => undefined,
    stop: () => env.teardown(),
  };
}

/**
 * The dev server's defaults tuned for one machine's throughput: one task queue partition, so a poll
 * and a task always meet on it (with the default four, a task written to a partition nobody polls
 * waits in SQLite until it is forwarded), and activities handed back to the worker in the answer to
 * the workflow task that scheduled them (eager execution) instead of through a poll.
 */
export const DEV_SERVER_DYNAMIC_CONFIG: Record<string, unknown> = {
  'matching.numTaskqueueReadPartitions': 1,
  'matching.numTaskqueueWritePartitions': 1,
  'system.enableActivityEagerExecution': true,
};

export function devServerDynamicConfigArgs(): string[] {
  return Object.entries(DEV_SERVER_DYNAMIC_CONFIG).flatMap(([key, value]) => ['--dynamic-config-value', `${key}=${JSON.stringify(value)}`]);
}

/** Runs `temporal server start-dev` on loopback with our search attributes registered. */
export async function startTemporalDevServer(props: StartDevServerProps): Promise<TemporalDevServer> {
  if (!props.cliPath) return startWithSdkDownload(props);
  const args = [
    'server',
    'start-dev',
    '--ip',
    '127.0.0.1',
    '--port',
    String(props.port),
    '--namespace',
    props.namespace,
    '--log-level',
    'warn',
    ...searchAttributeCliArgs(),
    ...devServerDynamicConfigArgs(),
    ...(props.uiPort ? ['--ui-port', String(props.uiPort)] : ['--headless']),
    ...(props.uiPort && props.uiCodecEndpoint ? ['--ui-codec-endpoint', props.uiCodecEndpoint] : []),
    ...(props.dbFile ? ['--db-filename', props.dbFile] : []),
  ];
  const child = spawn(props.cliPath, args, { stdio: ['ignore', 'pipe', 'pipe'] });
  if (props.logFile) {
    const out = createWriteStream(props.logFile, { flags: 'a' });
    child.stdout?.pipe(out);
    child.stderr?.pipe(out);
  } else {
    child.stdout?.resume();
    child.stderr?.resume();
  }
  const address = `127.0.0.1:${props.port}`;
  try {
    await waitForTemporal(address, props.namespace, props.readyTimeoutMs ?? 60_000, child);
  } catch (err) {
    await stopChild(child);
    throw err;
  }
  let stopping = false;
  let ended: string | undefined;
  child.once('exit', (code, signal) => {
    if (!stopping) ended = signal ? `signal ${signal}` : `code ${code}`;
  });
  return {
    address,
    uiUrl: props.uiPort ? `http://127.0.0.1:${props.uiPort}` : undefined,
    pid: child.pid,
    endedEarly: () => ended,
    stop: () => {
      stopping = true;
      return stopChild(child);
    },
  };
}
