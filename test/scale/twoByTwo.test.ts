/**
 * More than one of every process (docs/operations.md, The parts and how they scale): two api processes and two workers,
 * compiled and started with the roles `npm start` uses, on one Temporal, PostgreSQL and Redis.
 * Loopback only; the load is bounded in time (SCALE_TEST_DURATION_MS, default 20 s) and count.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { inject } from 'vitest';
import { startTestApp, type TestApp } from '../support/testApp.js';
import { bearer, createKey, sessionToken, uniqueEmail } from '../support/actors.js';
import { startSmtpSink, type SmtpSink } from '../support/smtpSink.js';
import { startFakeGithub, type FakeGithub } from '../support/fakeGithub.js';
import { createTestNamespace } from '../support/temporalNamespace.js';
import { runCompiled, type RunningProcess } from '../support/processes.js';
import { builtService } from '../support/serviceBuild.js';
import { createOwnDatabase } from '../support/ownDatabase.js';
import { assertLedgerInvariants } from '../support/ledgerInvariants.js';
import { runLoad } from '../support/loadClients.js';
import { scheduleId } from '../../src/worker/schedules.js';
import { BUILT_WORKFLOW_BUNDLE } from '../../src/worker/workflowBundle.js';
import { forwardedFrom, simulatedClientAddress } from '../support/http.js';
import { timeUntilSeen } from '../support/propagation.js';

const DURATION_MS = Number(process.env.SCALE_TEST_DURATION_MS ?? 20_000);
const RECONCILE_EVERY_MS = 2_000;

let app: TestApp;
/**
 * A database of its own: its schedules (the reconciler every 2 s) scan every operation, and other
 * files' deliberately stranded ones, in the run's shared database, are theirs to reconcile.
 */
let database: Awaited<ReturnType<typeof createOwnDatabase>>;
let smtp: SmtpSink;
let github: FakeGithub;
const apis: { process: RunningProcess; url: string; served: number }[] = [];
const workers: RunningProcess[] = [];

function processEnv(): Record<string, string> {
  const { config } = app.deps;
  return {
    NODE_ENV: 'test',
    LOG_LEVEL: 'info',
    HOST: '127.0.0.1',
    PORT: '0',
    DATABASE_URL: database.url,
    REDIS_URL: inject('redisUrl'),
    TEMPORAL_ADDRESS: inject('temporalAddress'),
    TEMPORAL_NAMESPACE: config.temporal.namespace,
    TEMPORAL_TASK_QUEUE: config.temporal.taskQueue,
    PAYLOAD_ENCRYPTION_KEYS: inject('payloadEncryptionKeys'),
    // One data dir for all: the development signing key and key-hash secret are shared, as on a volume.
    DATA_DIR: config.dataDir,
    SMTP_URL: smtp.url,
    MAIL_FROM: 'Domain Service <security@domains.test>',
    GITHUB_API_URL: github.url,
    GITHUB_TOKEN: 'ghp_scaleTestToken',
    // Loopback plays the load balancer; the test's client names its address (CLIENT) behind it.
    TRUST_PROXY: '127.0.0.1/32, ::1',
    REGISTRAR_CHECK_PER_MINUTE: '100000',
    OPERATION_RECONCILE_INTERVAL: `${RECONCILE_EVERY_MS}ms`,
  };
}

async function startWorker(): Promise<RunningProcess> {
  const worker = runCompiled('dist/src/main.js', ['--role', 'worker'], { ...processEnv(), WORKFLOW_BUNDLE: BUILT_WORKFLOW_BUNDLE });
  workers.push(worker);
  await worker.waitForOutput(/"msg":"worker polling"/, 90_000);
  return worker;
}

async function startApi(): Promise<void> {
  const api = runCompiled('dist/src/main.js', ['--role', 'api'], processEnv());
  await api.waitForOutput(/"msg":"api listening"/, 90_000);
  const url = /"url":"(http:\/\/[^"]+)"[^\n]*"msg":"api listening"/.exec(api.output())?.[1];
  if (!url) throw new Error(`no url in the api's log:\n${api.output()}`);
  apis.push({ process: api, url, served: 0 });
}

/** This file's client address, so its per-address pools are its own (test/support/http.ts). */
const CLIENT = simulatedClientAddress();
const apiFetch = (api: { url: string }, pathname: string, init?: RequestInit) => fetch(`${api.url}${pathname}`, forwardedFrom(CLIENT, init));

/** Requests alternate between the two api processes, as a round-robin load balancer sends them. */
let turn = 0;
const balancer = {
  fetch: (pathname: string, init?: RequestInit) => {
    const api = apis[turn++ % apis.length]!;
    api.served += 1;
    return apiFetch(api, pathname, init);
  },
};

beforeAll(async () => {
  await builtService();
  database = await createOwnDatabase();
  [smtp, github] = await Promise.all([startSmtpSink(), startFakeGithub()]);
  // A namespace of its own: the schedules' runs counted below are this file's alone.
  const namespace = await createTestNamespace('scale');
  // In process, without a worker: sets customers up and reads the invariants; serves no load.
  app = await startTestApp({ env: { TEMPORAL_NAMESPACE: namespace, DATABASE_URL: database.url } });
  await Promise.all([startWorker(), startWorker(), startApi(), startApi()]);
}, 300_000);

afterAll(async () => {
  for (const child of [...workers, ...apis.map((api) => api.process)]) {
    if (child.child.exitCode === null && child.child.signalCode === null) child.child.kill('SIGTERM');
  }
  await Promise.all([...workers, ...apis.map((api) => api.process)].map((p) => p.exited));
  await app?.close();
  await Promise.all([smtp?.close(), github?.close(), database?.drop()]);
});

describe('two api processes and two workers on one Temporal, PostgreSQL and Redis', () => {
  it('runs each schedule once per period, whichever worker created it', { timeout: 180_000 }, async () => {
    const { client } = app.deps.temporal;
    const id = scheduleId('operation-reconciler', app.deps.config);
    const ours: string[] = [];
    for await (const schedule of client.schedule.list()) if (schedule.scheduleId.endsWith(`:${app.deps.config.temporal.taskQueue}`)) ours.push(schedule.scheduleId);
    expect(ours.sort()).toEqual((['idempotency-purge', 'leak-scan', 'operation-reconciler', 'registrar-reconcile', 'events-purge', 'audit-purge'] as const).map((name) => scheduleId(name, app.deps.config)).sort());

    // The schedule's own record of its actions, by the time each was due.
    const handle = client.schedule.getHandle(id);
    const scheduledTimes = async () => (await handle.describe()).info.recentActions.map((action) => action.scheduledAt.getTime()).sort((x, y) => x - y);
    const actedSince = async (after: number) => {
      const deadline = Date.now() + 120_000;
      for (;;) {
        const times = await scheduledTimes();
        if ((times.at(-1) ?? 0) > after || Date.now() > deadline) return times;
        await new Promise((resolve) => setTimeout(resolve, 250));
      }
    };
    // Counted from the first action taken from now on, with both workers polling.
    const start = (await actedSince((await scheduledTimes()).at(-1) ?? 0)).at(-1)!;
    // The schedule acts in the order its times fall due, so once it has acted for a time five periods
    // on, its record of those five periods is final.
    const end = start + 5 * RECONCILE_EVERY_MS;
    const scheduled = (await actedSince(end - 1)).filter((at) => at >= start && at <= end);
    // Three to five runs after the first (a loaded machine may skip one), never two for one period.
    expect(scheduled.length - 1).toBeGreaterThanOrEqual(3);
    expect(scheduled.length - 1).toBeLessThanOrEqual(5);
    for (let i = 1; i < scheduled.length; i += 1) expect(scheduled[i]! - scheduled[i - 1]!).toBeGreaterThanOrEqual(RECONCILE_EVERY_MS);
  });

  it('under load, with one worker SIGKILLed mid-run, every operation ends once and is charged once', { timeout: DURATION_MS + 240_000 }, async () => {
    const started = Date.now();
    const runs = await runLoad({
      app,
      target: balancer,
      durationMs: DURATION_MS,
      midRun: async (third) => {
        await third;
        const victim = workers[0]!;
        victim.child.kill('SIGKILL');
        expect(await victim.exited).toBeNull();
        // No replacement: the surviving worker finishes what the dead one held.
      },
    });
    await assertLedgerInvariants({ db: app.deps.db, fetch: balancer.fetch }, runs);
    const accepted = runs.reduce((sum, run) => sum + run.accepted.size, 0);
    console.info(`two-by-two: ${accepted} operations accepted and settled in ${Math.round((Date.now() - started) / 1000)} s; requests per api ${apis.map((api) => api.served).join(' / ')}`);
    for (const api of apis) expect(api.served).toBeGreaterThan(accepted / 2);
  });

  it('refuses a deleted key on both api processes within 2 seconds', async () => {
    const session = await sessionToken(app, uniqueEmail('scale-key'));
    const key = await createKey(app, session, { name: 'two apis', scopes: ['keys:read', 'keys:write'], mode: 'test' });
    for (const api of apis) expect((await apiFetch(api, '/api/v1/me', { headers: bearer(key.key) })).status).toBe(200);
    const deleted = Date.now();
    expect((await apiFetch(apis[0]!, `/api/v1/me/api-keys/${key.id}`, { method: 'DELETE', headers: bearer(key.key) })).status).toBe(204);
    // Per process: when the last request the key still passed was sent (test/support/propagation.ts).
    const lastAcceptedSent = await Promise.all(
      apis.map(async (api) => {
        const refusal = await timeUntilSeen(deleted, async () => (await apiFetch(api, '/api/v1/me', { headers: bearer(key.key) })).status === 401, 25);
        return refusal.lastMissSentMs;
      }),
    );
    console.info(`deleted key last accepted by a request sent after ${lastAcceptedSent.join(' / ')} ms`);
    for (const ms of lastAcceptedSent) expect(ms).toBeLessThan(2_000);
  });

  it('revokes a leaked key and e-mails its owner once, when the alert reaches both api processes', { timeout: 60_000 }, async () => {
    const email = uniqueEmail('scale-leak');
    const session = await sessionToken(app, email);
    const key = await createKey(app, session, { name: 'leaked', scopes: ['keys:read'], mode: 'live' });
    const body = JSON.stringify([{ token: key.key, type: 'domain_service_api_key', url: 'https://github.com/octo/app/blob/1/config.js', source: 'content' }]);
    const signer = github.keys[github.keys.length - 1]!;
    const headers = { 'content-type': 'application/json', 'github-public-key-identifier': signer.identifier, 'github-public-key-signature': github.sign(body, signer) };
    const answers = await Promise.all(apis.map((api) => apiFetch(api, '/api/v1/secret-scanning/github', { method: 'POST', headers, body })));
    expect(answers.map((res) => res.status)).toEqual([200, 200]);
    // Both alerts have been answered, so any workflow either started has begun; once every one has
    // ended, its e-mail is in and no other can follow.
    const { client } = app.deps.temporal;
    expect(await client.workflow.getHandle(`revoke-key:${key.id}`).result()).toMatchObject({ notified: true });
    // The namespace's record of leak workflows for this key: one, ended (whatever its id).
    const leakRuns = async () => {
      const runs: string[] = [];
      for await (const run of client.workflow.list({ query: `WorkflowType = 'revokeLeakedKeyWorkflow'` })) if (run.memo?.keyId === key.id) runs.push(run.status.name);
      return runs;
    };
    await expect.poll(leakRuns, { timeout: 10_000 }).toEqual(['COMPLETED']);
    expect(smtp.to(email)).toHaveLength(1);
    for (const api of apis) expect((await apiFetch(api, '/api/v1/me', { headers: bearer(key.key) })).status).toBe(401);
  });
});
