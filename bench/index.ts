/**
 * `npm run bench`: prints latency figures. Needs PostgreSQL and Redis as for `npm run dev`; it uses
 * its own database (`domains_bench`, created and migrated here) and never asserts on timings.
 */
import { loadConfig } from '../src/config.js';
import { createLogger } from '../src/logger.js';
import { closeDeps, createDeps } from '../src/deps.js';
import { ensureDatabase, migrateUp } from '../src/db/migrate.js';
import { benchConsume } from './rateLimit.js';
import { benchHttpVariant, type LatencyRow } from './httpLayers.js';
import { benchThroughput } from './throughput.js';
import { benchRegistrations } from './registrations.js';
import { benchCaaBatch } from './dnsRecords.js';
import { installTemporalRuntime } from '../src/temporal/runtime.js';
import { resolveTemporalCli } from '../scripts/lib/temporalCli.js';
import { startOnFreePort, startTemporalDevServer, type TemporalDevServer } from '../scripts/lib/temporalDevServer.js';
import { createApiKey } from '../src/services/apiKeys/createApiKey.js';
import { SCOPES } from '../src/auth/scopes.js';
import type { Principal } from '../src/auth/principal.js';
import { upsertUserBySubject } from '../src/db/repositories/users.js';
import { insertOrganization } from '../src/db/repositories/organizations.js';
import { insertMembership } from '../src/db/repositories/memberships.js';
import { newId } from '../src/ids.js';

const REQUESTS = Number(process.env.BENCH_REQUESTS ?? 1000);
const fmt = (ms: number) => ms.toFixed(3).padStart(8);

async function main(): Promise<void> {
  const databaseUrl = process.env.BENCH_DATABASE_URL ?? 'postgres://127.0.0.1:5432/domains_bench';
  const baseConfig = loadConfig({ ...process.env, NODE_ENV: 'test', LOG_LEVEL: 'silent', DATABASE_URL: databaseUrl, DATA_DIR: '.data/bench', TEMPORAL_TASK_QUEUE: 'bench' });
  installTemporalRuntime(createLogger({ logLevel: 'error' }), { level: 'ERROR' });
  // Registrations need a Temporal server: the configured one, or a headless dev server of our own.
  let temporal: TemporalDevServer | undefined;
  if (!baseConfig.temporal.address) {
    const cliPath = await resolveTemporalCli((line) => console.error(line));
    temporal = await startOnFreePort((port) => startTemporalDevServer({ cliPath, port, namespace: baseConfig.temporal.namespace }));
  }
  const config = { ...baseConfig, temporal: { ...baseConfig.temporal, address: temporal?.address ?? baseConfig.temporal.address } };
  await ensureDatabase(databaseUrl);
  await migrateUp(databaseUrl, createLogger(config));
  const deps = await createDeps(config, createLogger(config));
  try {
    // An enterprise user, so the benchmark measures the layers rather than hitting its limits.
    const email = `bench-${Date.now()}@example.com`;
    const token = await deps.devIdentity!.issueToken({ email });
    const session = await deps.verifySession(token);
    const user = await upsertUserBySubject(deps.db, { subject: session.sub, email, name: 'Bench' });
    const org = await insertOrganization(deps.db, { id: newId('org'), name: 'Bench' });
    await insertMembership(deps.db, { orgId: org.id, userId: user.id, role: 'owner' });
    await deps.db.query(`UPDATE organizations SET plan = 'enterprise' WHERE id = $1`, [org.id]);

    const variants = [
      { variant: 'neither layer', layers: { rateLimit: false, idempotency: false }, idempotencyKeys: false },
      { variant: 'rate limiter', layers: { rateLimit: true, idempotency: false }, idempotencyKeys: false },
      { variant: 'idempotency (new key each)', layers: { rateLimit: false, idempotency: true }, idempotencyKeys: true },
      { variant: 'both', layers: { rateLimit: true, idempotency: true }, idempotencyKeys: true },
    ];
    const results: LatencyRow[] = [];
    for (const v of variants) {
      // A fresh session per variant: its own rate-limit pool.
      results.push(await benchHttpVariant({ deps, token: await deps.devIdentity!.issueToken({ email }), requests: REQUESTS, ...v }));
    }
    const base = results[0]!;
    console.log(`\nHTTP POST /bench/echo over loopback, sequential, ${REQUESTS} requests per variant (ms)`);
    console.log('variant                      p50       p99   +p50 vs none  +p99 vs none  statuses');
    for (const row of results) {
      console.log(
        `${row.variant.padEnd(26)} ${fmt(row.p50Ms)}  ${fmt(row.p99Ms)}      ${fmt(row.p50Ms - base.p50Ms)}      ${fmt(row.p99Ms - base.p99Ms)}  ${JSON.stringify(row.statuses)}`,
      );
    }
    const owner: Principal = { user, type: 'session', keyId: undefined, mode: 'live', livemode: true, scopes: new Set(SCOPES), rateLimitSubject: 'bench', credential: 'session:bench' };
    const seconds = Number(process.env.BENCH_SECONDS ?? 5);
    const testKey = await createApiKey({
      db: deps.db,
      keyHashSecret: deps.keyHashSecret,
      keyMisses: deps.keyMisses,
      principal: owner,
      name: 'bench',
      scopes: ['domains:read'],
      mode: 'test',
      requestId: 'bench',
    });
    const throughput = await benchThroughput({ deps, sessionToken: await deps.devIdentity!.issueToken({ email }), testKey: testKey.key, seconds });
    console.log(`\nThroughput, 10 connections, ${seconds} s each (rate limiter off; latency in ms)`);
    console.log('target                              req/s       p50       p99   non-2xx');
    for (const row of throughput) {
      console.log(`${row.target.padEnd(32)} ${row.requestsPerSecond.toFixed(0).padStart(8)}  ${fmt(row.p50Ms)}  ${fmt(row.p99Ms)}  ${String(row.non2xx).padStart(8)}`);
    }

    const count = Number(process.env.BENCH_REGISTRATIONS ?? 200);
    const registrations = await benchRegistrations({
      deps,
      principal: owner,
      testKey: (await createApiKey({
        db: deps.db,
        keyHashSecret: deps.keyHashSecret,
        keyMisses: deps.keyMisses,
        principal: owner,
        name: 'bench registrations',
        scopes: ['domains:read', 'domains:write'],
        mode: 'test',
        requestId: 'bench',
      })).key,
      orgId: org.id,
      count,
    });
    console.log(`\nTest-mode registrations through api, worker and Temporal, 10 at a time (ms)`);
    console.log(`${registrations.accepted}/${registrations.registrations} accepted, ${registrations.succeeded} succeeded`);
    console.log(`202 latency:             p50 ${fmt(registrations.acceptP50Ms)}  p99 ${fmt(registrations.acceptP99Ms)}`);
    console.log(`202 to succeeded:        p50 ${fmt(registrations.completeP50Ms)}  p99 ${fmt(registrations.completeP99Ms)}`);

    console.log('\nCAA iodef check, one batch of 100 records of ~2 KB (ms)');
    for (const row of benchCaaBatch()) console.log(`${row.variant.padEnd(26)} ${fmt(row.batchMs)}`);

    const limiter = await benchConsume(5_000, { redisUrl: config.redisUrl });
    console.log(`\nRate limiter consume() alone against Redis, ${limiter.iterations} calls (ms)`);
    console.log(`p50 ${fmt(limiter.p50Ms)}  p99 ${fmt(limiter.p99Ms)}  mean ${fmt(limiter.meanMs)}  degraded ${limiter.degraded}`);
  } finally {
    await closeDeps(deps);
    await temporal?.stop();
  }
}

main().catch((err: unknown) => {
  console.error(err);
  process.exitCode = 1;
});
