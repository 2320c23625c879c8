import { inject } from 'vitest';
import type { TestApp } from './testApp.js';
import type { HoldingProxy } from './holdingProxy.js';
import { runTs, type RunningProcess } from './processes.js';

/**
 * A second api, in a process of its own that a test may kill, reaching Temporal through `temporal`
 * (whose answers, or requests too, the test can hold) and sharing everything else with `app`: its
 * database, Redis, task queue (so `app`'s worker runs its workflows) and data dir (so the same API
 * keys verify and the same stored answers open).
 */
export async function apiBehindProxy(app: TestApp, temporal: HoldingProxy): Promise<{ api: RunningProcess; url: string }> {
  const api = runTs('src/main.ts', ['--role', 'api'], {
    NODE_ENV: 'test',
    LOG_LEVEL: 'info',
    PORT: '0',
    DATABASE_URL: inject('databaseUrl'),
    REDIS_URL: inject('redisUrl'),
    TEMPORAL_ADDRESS: `127.0.0.1:${temporal.port}`,
    TEMPORAL_TASK_QUEUE: app.deps.config.temporal.taskQueue,
    PAYLOAD_ENCRYPTION_KEYS: inject('payloadEncryptionKeys'),
    DATA_DIR: app.deps.config.dataDir,
    REGISTRAR_CHECK_PER_MINUTE: '100000',
  });
  await api.waitForOutput(/"msg":"api listening"/, 90_000);
  const url = /"url":"(http:\/\/[^"]+)"[^\n]*"msg":"api listening"/.exec(api.output())?.[1];
  if (!url) throw new Error(`no url in the api's log:\n${api.output()}`);
  return { api, url };
}

/** Kills the api unless it has ended already. */
export function killApi(api: RunningProcess | undefined): void {
  if (api && api.child.exitCode === null && api.child.signalCode === null) api.child.kill('SIGKILL');
}
