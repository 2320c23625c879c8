/**
 * The api's own middleware stack, compiled and in a process of its own, four times over: with neither
 * the rate limiter nor the idempotency layer, with each alone, and with both. One cheap authenticated
 * POST route (`/bench/echo`) on each, so the differences between them are what each layer adds per
 * request (bench/index.ts). Prints one JSON line mapping variant to URL, then serves until killed.
 * The route writes one row in one transaction, as the service's writes do, and answers through
 * answerInTransaction, so with an Idempotency-Key its answer is stored in that same transaction,
 * which also claims the key (`answersInTransaction`). Its twin `/bench/echo-claimed` claims the key
 * first, as routes whose effects reach outside one transaction do.
 */
import { z } from 'zod';
import { createApp } from '../../src/app.js';
import { loadConfig } from '../../src/config.js';
import { closeDeps, createDeps } from '../../src/deps.js';
import { listen, type ListeningServer } from '../../src/http/listen.js';
import { defineRoute } from '../../src/http/route.js';
import { answerInTransaction } from '../../src/http/idempotency.js';
import type { Db } from '../../src/db/pool.js';
import type { RouterLayers } from '../../src/http/router.js';
import { createLogger } from '../../src/logger.js';

/** Counted in the roomy `availability` pool; with `Idempotency-Key` it is stored and replayable. */
const echoRoute = (db: Db, claimFirst: boolean) => defineRoute({
  method: 'post',
  path: claimFirst ? '/bench/echo-claimed' : '/bench/echo',
  operationId: claimFirst ? 'benchEchoClaimed' : 'benchEcho',
  summary: 'Echo for benchmarks',
  tags: ['bench'],
  scope: 'any',
  rateLimitGroup: 'availability',
  request: { body: z.object({ n: z.number().int() }) },
  responses: { 201: { description: 'Echoed' } },
  answersInTransaction: !claimFirst,
  handler: async (ctx, { body }) => {
    await answerInTransaction(ctx, db, async (tx) => {
      await tx.query('INSERT INTO bench_echo (n) VALUES ($1)', [body.n]);
      return { status: 201, body };
    });
  },
});

export const LAYER_VARIANTS: Record<string, RouterLayers> = {
  neither: { rateLimit: false, idempotency: false },
  rateLimiter: { rateLimit: true, idempotency: false },
  idempotency: { rateLimit: false, idempotency: true },
  both: { rateLimit: true, idempotency: true },
};

const config = loadConfig();
const logger = createLogger(config);
const deps = await createDeps(config, logger);
await deps.db.query('CREATE TABLE IF NOT EXISTS bench_echo (n int NOT NULL, at timestamptz NOT NULL DEFAULT now())');
await deps.db.query('TRUNCATE bench_echo');
const servers: Record<string, ListeningServer> = {};
for (const [variant, layers] of Object.entries(LAYER_VARIANTS)) {
  servers[variant] = await listen(createApp(deps, { extraRoutes: [echoRoute(deps.db, false), echoRoute(deps.db, true)], layers }), '127.0.0.1', 0);
}
console.log(JSON.stringify(Object.fromEntries(Object.entries(servers).map(([variant, server]) => [variant, server.url]))));

process.once('SIGTERM', () => {
  void Promise.all(Object.values(servers).map((server) => server.close(1_000)))
    .then(() => closeDeps(deps))
    .then(() => process.exit(0));
});
