import { Readable } from 'node:stream';
import type pg from 'pg';
import type { Db } from './pool.js';

/** How long a reader may take over a streamed answer before its connection is taken back. */
export const SNAPSHOT_STREAM_LIMIT_MS = 120_000;
/**
 * How long a reader may leave the next part of a streamed answer (a batch, about 100 KB of a zone
 * file) untaken before its connection is taken back: the least rate a reader must keep, so one that
 * stalls frees its slot this soon after its buffers are full rather than at SNAPSHOT_STREAM_LIMIT_MS.
 */
export const SNAPSHOT_STREAM_STALL_MS = 10_000;

/** Who a streamed answer is for (an organisation), and how many of the slots they may hold at once. */
export interface SlotHolder {
  key: string;
  max: number;
  /** The error of one more while they hold `max`. */
  busy: () => Error;
}

/**
 * How many streamed answers may hold a pooled connection at once, so that slow readers cannot take
 * the pool from every other request, and how many of them one holder may. One more is refused at
 * once (the holder's `busy()`, else `busy()`), having given its connection back: waiting for a slot
 * while holding a connection would be the very thing to avoid.
 */
export class StreamSlots {
  private held = 0;
  private readonly heldBy = new Map<string, number>();

  constructor(
    private readonly max: number,
    private readonly busy: () => Error,
  ) {}

  /** The function that gives the slot back (safe to call twice); throws when none is free to `holder`. */
  take(holder?: SlotHolder): () => void {
    const ofHolder = holder ? (this.heldBy.get(holder.key) ?? 0) : 0;
    if (holder && ofHolder >= holder.max) throw holder.busy();
    if (this.held >= this.max) throw this.busy();
    this.held += 1;
    if (holder) this.heldBy.set(holder.key, ofHolder + 1);
    let given = false;
    return () => {
      if (given) return;
      given = true;
      this.held -= 1;
      if (!holder) return;
      const left = (this.heldBy.get(holder.key) ?? 1) - 1;
      if (left > 0) this.heldBy.set(holder.key, left);
      else this.heldBy.delete(holder.key);
    };
  }
}

/** `chunks` as they are taken, calling `stalled` when one is left untaken for `stallMs`. */
async function* stallWatched(chunks: AsyncGenerator<string>, stallMs: number, stalled: () => void): AsyncGenerator<string> {
  for await (const chunk of chunks) {
    const timer = setTimeout(stalled, stallMs);
    timer.unref();
    try {
      yield chunk;
    } finally {
      clearTimeout(timer);
    }
  }
}

/**
 * Text made from rows of one read-only snapshot, produced as the reader takes it, so an answer built
 * from a large set (a zone file) holds two batches at most (docs/bench.md, Scale). `head` and the first
 * two batches are read before the stream is returned: a database error there is still an ordinary
 * error answer, one after that can only cut the answer short. When the rows fit in one batch, the
 * connection goes back at once and the text is sent from memory; otherwise the stream takes one of
 * `slots` for `holder` (or is refused) and holds both until the reader has everything, goes away,
 * leaves a part untaken for `stallMs`, or has not finished within `limitMs`.
 */
export async function snapshotTextStream<Row>(
  db: Db,
  props: {
    head: (client: pg.PoolClient) => Promise<string>;
    batches: (client: pg.PoolClient) => AsyncGenerator<Row[]>;
    render: (rows: Row[]) => string;
    slots: StreamSlots;
    holder?: SlotHolder;
    limitMs?: number;
    stallMs?: number;
  },
): Promise<Readable> {
  let giveSlotBack = () => {};
  let client: pg.PoolClient | undefined;
  let ended = false;
  const end = async (failure?: unknown) => {
    if (ended) return;
    ended = true;
    if (client) {
      // Read only: rolling back ends it as well as a commit would, and also after a failed statement.
      const rolledBack = await client.query('ROLLBACK').then(
        () => true,
        () => false,
      );
      client.release(failure !== undefined || !rolledBack ? true : undefined);
    }
    giveSlotBack();
  };
  try {
    client = await db.connect();
    await client.query('BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY');
    const head = await props.head(client);
    const batches = props.batches(client);
    const read = [await batches.next(), await batches.next()];
    const early = read.flatMap((next) => (next.done ? [] : [props.render(next.value)]));
    // All of it in one batch (most zones): nothing is held while the answer is sent.
    if (read[1]!.done) {
      await end();
      return Readable.from(head + early.join(''), { objectMode: false });
    }
    try {
      giveSlotBack = props.slots.take(props.holder);
    } catch (busy) {
      // A healthy connection: back to the pool as it is, not closed as after a failure.
      await end();
      throw busy;
    }
    const text = async function* (): AsyncGenerator<string> {
      let failure: unknown;
      try {
        yield head;
        yield* early;
        for (let next = await batches.next(); !next.done; next = await batches.next()) yield props.render(next.value);
      } catch (err) {
        failure = err;
        throw err;
      } finally {
        await end(failure);
      }
    };
    const stalled = () => stream.destroy(new Error('the reader stopped taking the answer'));
    const stream = Readable.from(stallWatched(text(), props.stallMs ?? SNAPSHOT_STREAM_STALL_MS, stalled), { objectMode: false });
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
