import { mkdtemp, readdir } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, inject, it } from 'vitest';
import { z } from 'zod';
import { createRemoteJWKSet, jwtVerify } from 'jose';
import { defineRoute } from '../src/http/route.js';
import { createLogger } from '../src/logger.js';
import { startService } from '../src/startup.js';
import { randomBase62 } from '../src/ids.js';
import { DEV_AUDIENCE, DEV_ISSUER, loadDevIdentityProvider } from '../src/auth/dev/devIdentityProvider.js';
import { freePort } from '../scripts/lib/temporalDevServer.js';
import { runTs } from './support/processes.js';
import { sharedWorkflowBundle, startTestApp, testConfig } from './support/testApp.js';

/** The error fetching `url` rejects with once the server stops accepting (asked every 20 ms, for 10 s at most). */
async function refusedSoon(url: string): Promise<unknown> {
  for (let attempt = 0; attempt < 500; attempt += 1) {
    const refused = await fetch(url).then(
      async (res) => void (await res.body?.cancel()),
      (err: unknown) => err,
    );
    if (refused) return refused;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  throw new Error(`${url} still answered after 10 s`);
}

async function serviceEnv(): Promise<Record<string, string>> {
  return {
    NODE_ENV: 'test',
    PORT: String(await freePort()),
    DATABASE_URL: inject('databaseUrl'),
    REDIS_URL: inject('redisUrl'),
    TEMPORAL_ADDRESS: inject('temporalAddress'),
    TEMPORAL_TASK_QUEUE: `test-${randomBase62(10)}`,
    DATA_DIR: await mkdtemp(path.join(os.tmpdir(), 'domain-service-data-')),
    // Payloads are encrypted: every process of the test run must read what the others wrote.
    PAYLOAD_ENCRYPTION_KEYS: inject('payloadEncryptionKeys'),
  };
}

describe('the service process', () => {
  it('refuses to start on bad configuration and names the variable', async () => {
    const proc = runTs('src/main.ts', [], { ...(await serviceEnv()), PORT: 'eighty', REDIS_URL: 'nope' });
    expect(await proc.exited).toBe(1);
    expect(proc.output()).toMatch(/Invalid configuration:\n {2}- PORT: .*\n {2}- REDIS_URL: /);
    expect(proc.output()).not.toMatch(/at .*\.ts:\d+/);
  });

  it('refuses to start a worker whose WORKFLOW_BUNDLE is missing, naming the variable', async () => {
    const missing = path.join(os.tmpdir(), `no-bundle-${randomBase62(6)}.js`);
    const proc = runTs('src/main.ts', ['--role', 'worker'], { ...(await serviceEnv()), WORKFLOW_BUNDLE: missing });
    expect(await proc.exited).toBe(1);
    expect(proc.output()).toContain(`Invalid configuration:\n  - WORKFLOW_BUNDLE: no file at ${missing}`);
    expect(proc.output()).not.toMatch(/worker polling|Temporal schedules in place|at .*\.ts:\d+/);
  });

  it('serves, becomes ready, and exits cleanly on SIGTERM', async () => {
    const env: Record<string, string> = { ...(await serviceEnv()), METRICS_PORT: String(await freePort()), TEMPORAL_METRICS_PORT: String(await freePort()) };
    const proc = runTs('src/main.ts', [], env);
    // The combined process bundles its workflows before it listens: over 30 s on two busy cores.
    await proc.waitForOutput(/"msg":"api listening"/, 75_000);
    const url = `http://127.0.0.1:${env.PORT}`;
    await expect.poll(async () => (await fetch(`${url}/readyz`)).status, { timeout: 15_000, interval: 250 }).toBe(200);
    // The combined process serves its metrics on their own loopback port, until it stops.
    const metricsUrl = `http://127.0.0.1:${env.METRICS_PORT}/metrics`;
    const scrape = await fetch(metricsUrl);
    expect(scrape.status).toBe(200);
    expect(await scrape.text()).toMatch(/^registrar_drift_total\{kind="missing_upstream"\} 0$/m);
    expect((await fetch(`${url}/metrics`)).status).toBe(404);
    // The Temporal SDK's own metrics, from its native runtime, on the port of their own.
    const sdkMetrics = `http://127.0.0.1:${env.TEMPORAL_METRICS_PORT}/metrics`;
    await expect.poll(async () => (await fetch(sdkMetrics)).text(), { timeout: 15_000, interval: 500 }).toMatch(/^temporal_\w+.*task_queue="/m);
    proc.child.kill('SIGTERM');
    expect(await proc.exited).toBe(0);
    await expect(fetch(metricsUrl)).rejects.toThrow();
    expect(proc.output()).toMatch(/"msg":"shutting down[^"]*".*"msg":"stopped"/s);
    // Its waits (start-up up to 75 s, then two polls of up to 15 s) outlast the default 30 s on a busy machine.
  }, 120_000);
});

describe('graceful shutdown', () => {
  it('stops accepting, lets the in-flight request finish, then stops the worker', async () => {
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    let reached!: () => void;
    const inHandler = new Promise<void>((resolve) => (reached = resolve));
    const slowRoute = defineRoute({
      method: 'get',
      path: '/test/slow',
      operationId: 'testSlow',
      summary: 'Answers when the test lets it',
      tags: ['test'],
      scope: 'public',
      responses: { 200: { description: 'Done', schema: z.object({ done: z.boolean() }) } },
      handler: async (ctx) => {
        reached();
        await gate;
        ctx.body = { done: true };
      },
    });
    const config = await testConfig();
    const service = await startService({
      config,
      logger: createLogger(config),
      role: 'all',
      workflowBundle: sharedWorkflowBundle(),
      extraRoutes: [slowRoute],
    });
    const inFlight = fetch(`${service.apiUrl}/test/slow`);
    await inHandler;
    const stopping = service.stop();
    // Refused from the moment the listener closes, while the in-flight request still holds stop() open.
    await expect(refusedSoon(`${service.apiUrl}/healthz`)).resolves.toBeInstanceOf(Error);
    let stopped = false;
    void stopping.then(() => (stopped = true));
    await new Promise((resolve) => setImmediate(resolve));
    expect(stopped).toBe(false);
    release();
    const res = await inFlight;
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ done: true });
    await stopping;
    await service.stopped;
  });
});

describe('development identity provider', () => {
  it('`npm run token` prints a session JWT that verifies against the served JWKS', async () => {
    const env = await serviceEnv();
    const app = await startTestApp({ env: { DATA_DIR: env.DATA_DIR! } });
    try {
      const proc = runTs('src/cli/token.ts', ['--email', 'Alice@Example.com', '--name', 'Alice'], { DATA_DIR: env.DATA_DIR!, PORT: new URL(app.url).port });
      expect(await proc.exited).toBe(0);
      const token = proc.output().trim();
      const jwks = createRemoteJWKSet(new URL(`${app.url}/dev/jwks.json`));
      const { payload, protectedHeader } = await jwtVerify(token, jwks, { issuer: DEV_ISSUER, audience: DEV_AUDIENCE });
      expect(protectedHeader.alg).toBe('ES256');
      expect(payload).toMatchObject({ sub: 'dev|alice@example.com', email: 'Alice@Example.com', name: 'Alice' });
      expect(payload.exp! - payload.iat!).toBe(12 * 3600);
      expect(payload.sid).toMatch(/^sess_/);
    } finally {
      await app.close();
    }
  });

  it('`npm run token` refuses a missing e-mail and a configured external provider', async () => {
    const noEmail = runTs('src/cli/token.ts', [], {});
    expect(await noEmail.exited).toBe(1);
    expect(noEmail.output()).toContain('--email');
    const external = runTs('src/cli/token.ts', ['--email', 'a@example.com'], {
      AUTH_JWKS_URL: 'https://idp.example.com/jwks.json',
      AUTH_ISSUER: 'https://idp.example.com/',
      AUTH_AUDIENCE: 'domain-service',
    });
    expect(await external.exited).toBe(1);
    expect(external.output()).toContain('development identity provider is off');
  });

  it('`npm run token` never makes a signing key of its own, whose tokens the api would refuse: it says where it looked', async () => {
    const { DATA_DIR: dataDir } = await serviceEnv();
    const proc = runTs('src/cli/token.ts', ['--email', 'a@example.com'], { DATA_DIR: dataDir!, PORT: String(await freePort()) });
    expect(await proc.exited).toBe(1);
    expect(proc.output().trim()).toBe(
      `Invalid configuration:\n  - DATA_DIR: no development signing key in ${dataDir}; npm run dev creates one there when it starts. Start it first, or give npm run token the DATA_DIR npm run dev runs with`,
    );
    expect(await readdir(dataDir!)).toEqual([]);
  });

  it('`npm run token` refuses to print a token the api on PORT would refuse (it signs with another DATA_DIR\'s key)', async () => {
    const app = await startTestApp({ env: { DATA_DIR: (await serviceEnv()).DATA_DIR! } });
    try {
      const other = (await serviceEnv()).DATA_DIR!;
      await loadDevIdentityProvider(other);
      const proc = runTs('src/cli/token.ts', ['--email', 'a@example.com'], { DATA_DIR: other, PORT: new URL(app.url).port });
      expect(await proc.exited).toBe(1);
      expect(proc.output()).toContain(`the api on port ${new URL(app.url).port} signs with another development key than the one in ${other}`);
    } finally {
      await app.close();
    }
  });
});
