import os from 'node:os';
import pg from 'pg';
import type { Logger } from '../logger.js';
import { rethrowClassified } from './connectionErrors.js';

export type Db = pg.Pool;
/** Either the pool or a client inside a transaction: every repository function accepts both. */
export type Queryable = Pick<pg.Pool, 'query'> | pg.PoolClient;

/**
 * Connection settings for a URL. Without a user in the URL, libpq's rule applies: `PGUSER`,
 * else the operating-system user (node-postgres would otherwise need `USER` to be set).
 */
export function connectionConfig(databaseUrl: string): pg.ClientConfig {
  const url = new URL(databaseUrl);
  if (url.username === '') url.username = encodeURIComponent(process.env.PGUSER ?? os.userInfo().username);
  return { connectionString: url.toString() };
}

/** How long one statement may wait for its answer before the connection counts as lost. */
const QUERY_TIMEOUT_MS = 30_000;

/**
 * How long a connection stays open unused. A new one costs its handshake, a backend started by
 * PostgreSQL and the first parse of every named statement: at the start of a burst of ten
 * registrations after half a minute's quiet, that was 60 to 200 ms each (docs/bench.md). So what one
 * burst opened waits a minute for the next (node-postgres closes it after 10 s), and a quiet process
 * keeps a few (`min`).
 */
const IDLE_CONNECTION_MS = 60_000;

type QueryFn = (...args: unknown[]) => unknown;

/**
 * Wraps promise-style `query` calls so connection-level failures surface as DatabaseConnectionError
 * (`connectionErrors.ts`). Callback-style calls (the pool's own, on its clients) pass through untouched.
 */
function guardQuery(target: { query: unknown }): void {
  const original = (target.query as QueryFn).bind(target);
  target.query = (...args: unknown[]) => {
    if (typeof args[args.length - 1] === 'function') return original(...args);
    const result = original(...args);
    return result instanceof Promise ? result.catch(rethrowClassified) : result;
  };
}

const guardedClients = new WeakSet<pg.PoolClient>();

/**
 * `claims`: a small pool whose commits do not wait for the WAL to reach the disk
 * (`synchronous_commit = off`), for records that guard an effect committed after them (idempotency
 * claims). PostgreSQL writes its log in order, so the first synchronous commit after such a record (the
 * effect's, or the stored answer's) makes it durable too; one lost in a database crash before then is
 * lost with everything its request wrote, and the retry runs as new (docs/operations.md).
 */
export function createPool(databaseUrl: string, logger: Logger, use: 'default' | 'claims' = 'default'): Db {
  const pool = new pg.Pool({
    ...connectionConfig(databaseUrl),
    max: use === 'claims' ? 4 : 10,
    min: use === 'claims' ? 1 : 2,
    idleTimeoutMillis: IDLE_CONNECTION_MS,
    connectionTimeoutMillis: 5_000,
    query_timeout: QUERY_TIMEOUT_MS,
    // How pg_stat_activity and the server's log name our connections; PGAPPNAME names them per process.
    application_name: process.env.PGAPPNAME ?? (use === 'claims' ? 'domain-service claims' : 'domain-service'),
    ...(use === 'claims' ? { options: '-c synchronous_commit=off' } : {}),
  });
  // An idle client losing its connection must not crash the process; the next query reconnects.
  pool.on('error', (err) => logger.warn({ err }, 'idle PostgreSQL client error'));
  // A checked-out client loses the pool's idle listener, and a connection that ends between its
  // queries (PostgreSQL stopped, `pg_terminate_backend`) then emits an 'error' nobody hears, which
  // ends the process. Its queries fail on their own; this only keeps the process alive.
  pool.on('connect', (client) => client.on('error', (err) => logger.warn({ err }, 'PostgreSQL client error')));
  guardQuery(pool);
  const connect = pool.connect.bind(pool) as (...args: unknown[]) => Promise<pg.PoolClient> | undefined;
  // The pool's own `query` checks out with a callback: leave that path as it is.
  pool.connect = ((...args: unknown[]) => (args.length > 0 ? connect(...args) : checkout())) as typeof pool.connect;
  async function checkout(): Promise<pg.PoolClient> {
    const client = await connect()!.catch(rethrowClassified);
    if (!guardedClients.has(client)) {
      guardedClients.add(client);
      guardQuery(client);
    }
    return client;
  }
  return pool;
}

/** One round trip: what the readiness check asks of PostgreSQL. */
export async function pingDatabase(db: Queryable): Promise<void> {
  await db.query('SELECT 1');
}

/**
 * Runs `work` in one transaction on one client; rolls back on any error. `commit`, when given, ends
 * the transaction instead of a bare COMMIT: a last write sent in one query with the COMMIT, one
 * round trip where it would cost two (storeAnsweredIdempotencyKeyAndCommit).
 */
export async function withTransaction<T>(
  db: Db,
  work: (client: pg.PoolClient) => Promise<T>,
  commit: (client: pg.PoolClient, result: T) => Promise<void> = async (client) => {
    await client.query('COMMIT');
  },
): Promise<T> {
  const client = await db.connect();
  try {
    await client.query('BEGIN');
    const result = await work(client);
    await commit(client, result);
    return result;
  } catch (err) {
    await client.query('ROLLBACK').catch(() => undefined);
    throw err;
  } finally {
    client.release();
  }
}
