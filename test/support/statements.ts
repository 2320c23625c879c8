import type pg from 'pg';
import type { Db } from '../../src/db/pool.js';

/**
 * The text of each statement sent through the app's pools (their own queries and their clients'),
 * in the order sent, while `work` runs. Pass every pool a path uses (deps.db, deps.claimsDb).
 */
export async function statementsOf(pools: Db | Db[], work: () => Promise<void>): Promise<string[]> {
  const sent: string[] = [];
  const restores = (Array.isArray(pools) ? pools : [pools]).map((db) => watch(db, sent));
  try {
    await work();
  } finally {
    for (const restore of restores) restore();
  }
  return sent.map((text) => text.replace(/\s+/g, ' ').trim());
}

function watch(db: Db, sent: string[]): () => void {
  const count = <T extends { query: pg.Pool['query'] }>(target: T) => {
    const original = target.query;
    target.query = ((...args: Parameters<pg.Pool['query']>) => {
      const text = args[0] as unknown;
      sent.push(typeof text === 'string' ? text : (text as { text: string }).text);
      return (original as (...a: unknown[]) => unknown).apply(target, args);
    }) as T['query'];
    return () => {
      target.query = original;
    };
  };
  const restorePool = count(db);
  // Taken as plain functions and called with their object, so they can be put back as they were.
  const connect = Reflect.get(db, 'connect') as (...args: unknown[]) => unknown;
  // The pool's own `query` checks out with a callback: that path is counted by the pool's query above.
  db.connect = ((...args: unknown[]) => {
    if (args.length > 0) return connect.apply(db, args);
    return (connect.call(db) as Promise<pg.PoolClient>).then((client) => {
      // Counted while checked out only: back in the pool, the pool's own query reuses it.
      const restore = count(client);
      const release = Reflect.get(client, 'release') as (...args: unknown[]) => unknown;
      client.release = ((...releaseArgs: unknown[]) => {
        restore();
        client.release = release;
        return release.apply(client, releaseArgs);
      });
      return client;
    });
  }) as typeof db.connect;
  return () => {
    restorePool();
    db.connect = connect as typeof db.connect;
  };
}
