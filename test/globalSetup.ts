/**
 * Once per `npm test`: a real Temporal dev server (the pinned CLI, built if needed), a fresh
 * PostgreSQL database with every migration applied, and one workflow bundle shared by all files.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type { TestProject } from 'vitest/node';
import { createLogger } from '../src/logger.js';
import { dropDatabase, ensureDatabase, migrateUp } from '../src/db/migrate.js';
import { writeWorkflowBundle } from '../src/worker/workflowBundle.js';
import { randomBase62 } from '../src/ids.js';
import { randomBytes } from 'node:crypto';
import { resolveTemporalCli } from '../scripts/lib/temporalCli.js';
import { startOnFreePort, startTemporalDevServer } from '../scripts/lib/temporalDevServer.js';
import { watchTemporal } from './support/temporalWatch.js';

declare module 'vitest' {
  export interface ProvidedContext {
    databaseUrl: string;
    redisUrl: string;
    temporalAddress: string;
    workflowBundlePath: string;
    payloadEncryptionKeys: string;
  }
}

const log = (line: string) => console.log(`[test setup] ${line}`);

function testDatabaseUrl(): string {
  const base = new URL(process.env.TEST_DATABASE_URL ?? 'postgres://127.0.0.1:5432/postgres');
  base.pathname = `/domains_test_${randomBase62(8).toLowerCase()}`;
  return base.toString();
}

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const started = Date.now();
  const scratch = await mkdtemp(path.join(os.tmpdir(), 'domain-service-test-'));

  const databaseUrl = testDatabaseUrl();
  await ensureDatabase(databaseUrl);
  const applied = await migrateUp(databaseUrl, createLogger({ logLevel: 'warn' }));
  log(`database ${new URL(databaseUrl).pathname.slice(1)} migrated (${applied.length} migrations)`);

  const cliPath = await resolveTemporalCli(log);
  const temporalLog = path.join(scratch, 'temporal.log');
  const temporal = await startOnFreePort((port) => startTemporalDevServer({ cliPath, port, namespace: 'default', logFile: temporalLog }));
  log(`Temporal dev server at ${temporal.address} (${cliPath ?? 'SDK download'})`);
  const temporalWatch = watchTemporal({ server: temporal, namespace: 'default', logFile: temporalLog, log });

  const workflowBundlePath = path.join(scratch, 'workflow-bundle.js');
  await writeWorkflowBundle(workflowBundlePath, log);

  project.provide('databaseUrl', databaseUrl);
  project.provide('redisUrl', process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379');
  project.provide('temporalAddress', temporal.address);
  project.provide('workflowBundlePath', workflowBundlePath);
  // One key for every test process (apps, spawned workers), as a deployment shares its keys.
  project.provide('payloadEncryptionKeys', `test-${randomBase62(6)}:${randomBytes(32).toString('base64')}`);
  log(`ready in ${Date.now() - started} ms`);

  return async () => {
    await temporalWatch.stop();
    await temporal.stop();
    await dropDatabase(databaseUrl);
    await rm(scratch, { recursive: true, force: true });
  };
}
