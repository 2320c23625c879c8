import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { inject } from 'vitest';
import type { WorkflowBundleOption } from '@temporalio/worker';
import { loadConfig, type Config } from '../../src/config.js';
import { createLogger } from '../../src/logger.js';
import { closeDeps, createDeps, type AppDeps } from '../../src/deps.js';
import { createApp } from '../../src/app.js';
import { listen } from '../../src/http/listen.js';
import type { RouteSpec } from '../../src/http/route.js';
import { createWorker, type RunningWorker } from '../../src/worker/worker.js';
import { createRateLimiter } from '../../src/rateLimit/limiter.js';
import { randomBase62 } from '../../src/ids.js';
import { forwardedFrom, simulatedClientAddress } from './http.js';
import type { ActivityDeps } from '../../activities/index.js';

/** Configuration pointing at the test run's database, Redis and Temporal, with its own data dir and task queue. */
export async function testConfig(env: Record<string, string> = {}, { deploymentDefaults = false } = {}): Promise<Config> {
  const dataDir = await mkdtemp(path.join(os.tmpdir(), 'domain-service-data-'));
  return loadConfig({
    NODE_ENV: 'test',
    LOG_LEVEL: process.env.TEST_LOG_LEVEL ?? 'silent',
    PORT: '0',
    DATABASE_URL: inject('databaseUrl'),
    REDIS_URL: inject('redisUrl'),
    TEMPORAL_ADDRESS: inject('temporalAddress'),
    TEMPORAL_TASK_QUEUE: `test-${randomBase62(10)}`,
    DATA_DIR: dataDir,
    // Loopback plays the proxy in front of the app, as in a deployment: each simulated client names
    // its own address in X-Forwarded-For (TestApp.fetch, TestBrowser), so test files running at once
    // on this machine never share per-address pools.
    TRUST_PROXY: '127.0.0.1/32, ::1',
    // Live tests talk to a loopback double; test/http/registrarBudget.test.ts sets a real pace, and
    // test/workflows/deploymentDefaults.test.ts keeps the deployment's.
    ...(deploymentDefaults ? {} : { REGISTRAR_CHECK_PER_MINUTE: '100000' }),
    PAYLOAD_ENCRYPTION_KEYS: inject('payloadEncryptionKeys'),
    // The database is shared by every test file: see test/support/processes.ts.
    WEBHOOK_DISPATCHER: 'off',
    ...env,
  });
}

export function sharedWorkflowBundle(): WorkflowBundleOption {
  return { codePath: inject('workflowBundlePath') };
}

export interface TestApp {
  url: string;
  deps: AppDeps;
  worker: RunningWorker | undefined;
  /** The address this app's `fetch` calls come from (X-Forwarded-For), unless a call names another. */
  clientAddress: string;
  fetch(pathname: string, init?: RequestInit): Promise<Response>;
  close(): Promise<void>;
}

export interface TestAppOptions {
  env?: Record<string, string>;
  extraRoutes?: RouteSpec[];
  /** Where log lines go (with LOG_LEVEL set in env); default: the logger's own stdout. */
  logDestination?: { write(line: string): void };
  /** Also run a worker on the app's task queue (with the shared workflow bundle). */
  worker?: boolean;
  /** What the worker's activities reach outside, replaced (a webhook resolver that never asks the real DNS). */
  outside?: Pick<ActivityDeps, 'webhookResolver'>;
  /** Listen on this port rather than one the system picks (an address another app must know first). */
  port?: number;
  /** The worker's workflow bundle when not the shared one (e.g. one with interceptors). */
  workflowBundle?: WorkflowBundleOption;
  /** The limits a deployment has (REGISTRAR_CHECK_PER_MINUTE's default), not the test run's looser ones. */
  deploymentDefaults?: boolean;
  /** The rate limiter's clock (test/support/manualClock.ts), for bursts decided in one window. */
  rateLimitClock?: () => number;
}

/** The real app on a real port, with real PostgreSQL, Redis and Temporal behind it. */
export async function startTestApp(options: TestAppOptions = {}): Promise<TestApp> {
  const config = await testConfig(options.env, { deploymentDefaults: options.deploymentDefaults });
  const created = await createDeps(config, createLogger(config, {}, options.logDestination));
  const deps = options.rateLimitClock
    ? { ...created, rateLimiter: createRateLimiter({ redis: created.redis, logger: created.logger, now: options.rateLimitClock }) }
    : created;
  const worker = options.worker ? await createWorker(deps, options.workflowBundle ?? sharedWorkflowBundle(), options.outside) : undefined;
  const workerRun = worker?.worker.run();
  const http = await listen(
    (listeningUrl) => createApp(deps, { extraRoutes: options.extraRoutes ?? [], listeningUrl }),
    '127.0.0.1',
    options.port ?? 0,
    config.httpTimeouts,
  );
  const address = simulatedClientAddress();
  return {
    url: http.url,
    deps,
    worker,
    clientAddress: address,
    fetch: (pathname, init) => fetch(`${http.url}${pathname}`, forwardedFrom(address, init)),
    close: async () => {
      await http.close(1_000);
      if (worker) {
        worker.worker.shutdown();
        await workerRun;
        await worker.connection.close();
      }
      await closeDeps(deps);
      await rm(config.dataDir, { recursive: true, force: true });
    },
  };
}

/** A port nothing listens on, for pointing a dependency at a dead address. */
export const CLOSED_PORT_URL = 'redis://127.0.0.1:1';
