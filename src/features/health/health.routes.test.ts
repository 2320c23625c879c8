import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CLOSED_PORT_URL, startTestApp, type TestApp } from '../../../test/support/testApp.js';

describe('health endpoints', () => {
  let app: TestApp;
  beforeAll(async () => {
    app = await startTestApp({ worker: true });
  });
  afterAll(async () => app?.close());

  it('answers liveness without checking dependencies', async () => {
    const res = await app.fetch('/healthz');
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ status: 'ok' });
  });

  it('is ready when PostgreSQL, Redis, Temporal and a worker all answer', async () => {
    // The worker's first poll reaches the server within moments of starting.
    await expect
      .poll(async () => (await app.fetch('/readyz')).status, { timeout: 10_000, interval: 200 })
      .toBe(200);
    expect(await (await app.fetch('/readyz')).json()).toEqual({
      status: 'ready',
      checks: { postgres: 'ok', redis: 'ok', temporal: 'ok', worker: 'ok', rate_limiter: 'ok' },
    });
  });
});

describe('readiness with a dependency down', () => {
  let app: TestApp;
  const logLines: string[] = [];
  beforeAll(async () => {
    app = await startTestApp({ env: { REDIS_URL: CLOSED_PORT_URL, LOG_LEVEL: 'warn' }, logDestination: { write: (line) => logLines.push(line) } });
  });
  afterAll(async () => app?.close());

  it('answers 503 naming Redis and the missing worker, logs why, and stays alive', async () => {
    const res = await app.fetch('/readyz');
    expect(res.status).toBe(503);
    expect(res.headers.get('retry-after')).toBe('5');
    // Only ok/down leaves the service: client messages and addresses are for the log.
    expect(await res.json()).toEqual({
      status: 'not_ready',
      checks: { postgres: 'ok', redis: 'down', temporal: 'ok', worker: 'down', rate_limiter: 'down' },
    });
    const logged = logLines.map((line) => JSON.parse(line) as { msg: string; reasons?: Record<string, string> }).find((l) => l.msg === 'not ready');
    expect(logged?.reasons?.worker).toMatch(/no worker is polling task queue/);
    expect(logged?.reasons?.rate_limiter).toMatch(/^degraded: /);
    expect(logged?.reasons?.redis).toBeDefined();
    expect((await app.fetch('/healthz')).status).toBe(200);
  });

  it('names Temporal when its frontend is unreachable', async () => {
    const noTemporal = await startTestApp({ env: { TEMPORAL_ADDRESS: '127.0.0.1:1' } });
    try {
      const body = (await (await noTemporal.fetch('/readyz')).json()) as { checks: Record<string, string> };
      expect(body.checks).toMatchObject({ postgres: 'ok', redis: 'ok', temporal: 'down' });
    } finally {
      await noTemporal.close();
    }
  });
});
