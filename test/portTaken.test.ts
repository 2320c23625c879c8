/**
 * A port another process holds is, for every role, one line that names the variable moving it: not
 * Node's EADDRINUSE stack trace. Each role starts on a port this test holds.
 */
import { mkdtemp } from 'node:fs/promises';
import { createServer, type Server } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { randomBase62 } from '../src/ids.js';
import { PortTakenError } from '../src/http/portTaken.js';
import { startDashboardDevServer } from '../scripts/lib/dashboardDevServer.js';
import { runTs } from './support/processes.js';

let held: Server;
let port: number;

beforeAll(async () => {
  held = createServer();
  await new Promise<void>((resolve) => held.listen(0, '127.0.0.1', resolve));
  port = (held.address() as { port: number }).port;
});
afterAll(async () => new Promise<void>((resolve) => held.close(() => resolve())));

async function serviceEnv(): Promise<Record<string, string>> {
  return {
    NODE_ENV: 'test',
    LOG_LEVEL: 'silent',
    HOST: '127.0.0.1',
    DATABASE_URL: inject('databaseUrl'),
    REDIS_URL: inject('redisUrl'),
    TEMPORAL_ADDRESS: inject('temporalAddress'),
    TEMPORAL_TASK_QUEUE: `test-${randomBase62(10)}`,
    DATA_DIR: await mkdtemp(path.join(os.tmpdir(), 'domain-service-data-')),
    PAYLOAD_ENCRYPTION_KEYS: inject('payloadEncryptionKeys'),
  };
}

const sidecarEnv = () => ({
  NODE_ENV: 'test',
  LOG_LEVEL: 'silent',
  EXTERNAL_DNS_WEBHOOK_API_URL: 'http://127.0.0.1:9',
  EXTERNAL_DNS_WEBHOOK_API_KEY: `svc_test_${'A'.repeat(38)}`,
  EXTERNAL_DNS_WEBHOOK_ORG: 'org_portTaken',
  EXTERNAL_DNS_WEBHOOK_PORT: '0',
  EXTERNAL_DNS_WEBHOOK_HEALTH_HOST: '127.0.0.1',
  EXTERNAL_DNS_WEBHOOK_HEALTH_PORT: '0',
});

const cases: [role: string, variable: string, env: () => Promise<Record<string, string>>][] = [
  ['api', 'PORT', async () => ({ ...(await serviceEnv()), PORT: String(port) })],
  ['worker', 'METRICS_PORT', async () => ({ ...(await serviceEnv()), METRICS_HOST: '127.0.0.1', METRICS_PORT: String(port) })],
  ['worker', 'TEMPORAL_METRICS_PORT', async () => ({ ...(await serviceEnv()), TEMPORAL_METRICS_PORT: String(port) })],
  ['codec-server', 'CODEC_SERVER_PORT', async () => ({ ...(await serviceEnv()), CODEC_SERVER_PORT: String(port) })],
  ['external-dns-webhook', 'EXTERNAL_DNS_WEBHOOK_PORT', () => Promise.resolve({ ...sidecarEnv(), EXTERNAL_DNS_WEBHOOK_PORT: String(port) })],
  ['external-dns-webhook', 'EXTERNAL_DNS_WEBHOOK_HEALTH_PORT', () => Promise.resolve({ ...sidecarEnv(), EXTERNAL_DNS_WEBHOOK_HEALTH_PORT: String(port) })],
];

describe('a taken port', () => {
  it.each(cases)('stops the %s role with one line naming %s', async (role, variable, env) => {
    const proc = runTs('src/main.ts', ['--role', role], await env());
    expect(await proc.exited).toBe(1);
    expect(proc.output().trim()).toBe(
      `127.0.0.1:${port} is already in use by another process (EADDRINUSE): set ${variable} to a free port, or stop what listens there`,
    );
  }, 60_000);

  it('stops npm run dev’s dashboard server naming DASHBOARD_DEV_PORT', async () => {
    const failure = await startDashboardDevServer({ apiUrl: 'http://127.0.0.1:9', port }).then(
      async (server) => {
        await server.close();
        return undefined;
      },
      (err: unknown) => err,
    );
    expect(failure).toBeInstanceOf(PortTakenError);
    expect((failure as Error).message).toContain('set DASHBOARD_DEV_PORT to a free port');
  }, 60_000);
});
