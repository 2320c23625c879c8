import { Readable } from 'node:stream';
import type pg from 'pg';
import type { Db } from './pool.js';

/** How long a reader may take over a streamed answer before its connection is taken back. */
export const SNAPSHOT_STREAM_LIMIT_MS = 120_000;

/**
 * Text made from rows of one read-only snapshot, produced as the reader takes it, so an answer built
 * from a large set (a zone file) holds one batch at a time (docs/bench.md, Scale). `head` and the first
 * batch are read before the stream is returned: a database error there is still an ordinary error
 * answer; one after that can only cut the answer short. The connection goes back to the pool when the
 * reader has everything, goes away, or has not finished within `limitMs`.
 */
export async function snapshotTextStream<Row>(
  db: Db,
  props: {
    head: (client: pg.PoolClient) => Promise<string>;
    batches: (client: pg.PoolClient) => AsyncGenerator<Row[]>;
    render: (rows: Row[]) => string;
    limitMs?: number;
  },
): Promise<Readable> {
  const client = await db.connect();
  let ended = false;
  const end = async (failure?: unknown) => {
    if (ended) return;
    ended = true;
    // Read only: rolling back ends it as well as a commit would, and also after a failed statement.
    const rolledBack = await client.query('ROLLBACK').then(
      () => true,
      () => false,
    );
    client.release(failure !== undefined || !rolledBack ? true : undefined);
  };
  try {
    await client.query('BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY');
    const head = await props.head(client);
    const batches = props.batches(client);
    const first = await batches.next();
    const text = async function* (): AsyncGenerator<string> {
      let failure: unknown;
      try {
        yield head;
        for (let next = first; !next.done; next = await batches.next()) yield props.render(next.value);
      } catch (err) {
        failure = err;
        throw err;
      } finally {
        await end(failure);
      }
    };
    const stream = Readable.from(text(), { objectMode: false });
    const timer = setTimeout(() => stream.destroy(new Error('the reader did not take the whole answer in time')), props.limitMs ?? SNAPSHOT_STREAM_LIMIT_MS);
    timer.unref();
    // Destroyed before its first read (the request went away): its generator never ran, so end here.
    stream.once('close', () => {
      clearTimeout(timer);
      void end();
    });
    return stream;
  } catch (err) {
    await end(err);
    throw err;
  }
}
