/**
 * The bench's floors for HTTP, in a process of their own and compiled like the api (bench/index.ts):
 * a bare Koa route, and a bare Koa route doing one PostgreSQL `SELECT 1` and one Redis `GET`, the
 * least any authenticated read can do. Prints one JSON line with both URLs, then serves until killed.
 */
import Koa from 'koa';
import pg from 'pg';
import { Redis } from 'ioredis';
import { listen } from '../../src/http/listen.js';
import { connectionConfig } from '../../src/db/pool.js';

const databaseUrl = process.env.DATABASE_URL ?? 'postgres://127.0.0.1:5432/domains_bench';
const pool = new pg.Pool({ ...connectionConfig(databaseUrl), max: 10 });
const redis = new Redis(process.env.REDIS_URL ?? 'redis://127.0.0.1:6379');

const bare = new Koa();
bare.use((ctx) => {
  ctx.body = { ok: true };
});

const oneReadEach = new Koa();
oneReadEach.use(async (ctx) => {
  await pool.query('SELECT 1');
  await redis.get('bench:floor');
  ctx.body = { ok: true };
});

const bareServer = await listen(bare, '127.0.0.1', 0);
const ioServer = await listen(oneReadEach, '127.0.0.1', 0);
console.log(JSON.stringify({ bare: bareServer.url, pgRedis: ioServer.url }));

process.once('SIGTERM', () => {
  void Promise.all([bareServer.close(1_000), ioServer.close(1_000), pool.end(), redis.quit()]).then(() => process.exit(0));
});
