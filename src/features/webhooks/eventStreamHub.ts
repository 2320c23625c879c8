import pg from 'pg';
import type { Db } from '../../db/pool.js';
import { connectionConfig } from '../../db/pool.js';
import type { Logger } from '../../logger.js';
import { EVENTS_CHANNEL, eventNotice, eventsByIds, type EventRow } from './events.repository.js';

/** One open event stream, as the hub sees it. */
export interface StreamListener {
  orgId: string;
  livemode: boolean;
  /** Events of its organisation and mode, oldest first, as their transactions commit. */
  deliver(events: EventRow[]): void;
  /** Notifications may have been missed (the LISTEN connection was lost): read what came since from the table. */
  catchUp(): void;
  /** The process is stopping: say so to the client and end. */
  end(): void;
}

/** Ids read per query when a large transaction (a zone import) notifies thousands at once. */
const IDS_PER_READ = 1_000;
const RECONNECT_MS = 1_000;

/**
 * Tells this process's event streams of new events as soon as their transactions commit: one
 * PostgreSQL connection LISTENs on the channel insertEvent notifies (opened with the first stream,
 * closed after the last), reads each burst of notified events of the organisations followed here
 * once, and hands each event to the streams of its organisation and mode. If the connection is lost, every stream catches up from the
 * table once it is back, so nothing committed in between is missed.
 */
export class EventStreamHub {
  private readonly listeners = new Set<StreamListener>();
  /** Streams per organisation: notices of other organisations are not read. */
  private readonly followed = new Map<string, number>();
  private connection: pg.Client | undefined;
  private pending: string[] = [];
  private reading: Promise<void> | undefined;
  private reconnectTimer: NodeJS.Timeout | undefined;
  private closed = false;

  constructor(private readonly deps: { db: Db; databaseUrl: string; logger: Logger }) {}

  get size(): number {
    return this.listeners.size;
  }

  /** Listens for the stream until the returned function is called. Resolves once LISTEN is in place. */
  async add(listener: StreamListener): Promise<() => void> {
    if (this.closed) throw new Error('the event stream hub is closed');
    const remove = () => {
      if (!this.listeners.delete(listener)) return;
      const left = (this.followed.get(listener.orgId) ?? 1) - 1;
      if (left > 0) this.followed.set(listener.orgId, left);
      else this.followed.delete(listener.orgId);
      if (this.listeners.size === 0) this.disconnect();
    };
    this.listeners.add(listener);
    this.followed.set(listener.orgId, (this.followed.get(listener.orgId) ?? 0) + 1);
    try {
      await this.connect();
    } catch (err) {
      remove();
      throw err;
    }
    return remove;
  }

  /** Ends every stream and stops listening (the api is shutting down). */
  async close(): Promise<void> {
    this.closed = true;
    for (const listener of [...this.listeners]) listener.end();
    this.listeners.clear();
    this.followed.clear();
    this.disconnect();
    await this.reading;
  }

  private connecting: Promise<void> | undefined;

  private connect(): Promise<void> {
    if (this.connection) return Promise.resolve();
    this.connecting ??= (async () => {
      const client = new pg.Client(connectionConfig(this.deps.databaseUrl));
      client.on('notification', (message) => {
        if (message.payload) this.notified(message.payload);
      });
      const lost = (err?: Error) => {
        if (this.connection !== client) return;
        this.connection = undefined;
        this.deps.logger.warn({ err }, 'event streams lost their LISTEN connection; reconnecting');
        this.scheduleReconnect();
      };
      client.on('error', lost);
      client.on('end', () => lost());
      try {
        await client.connect();
        await client.query(`LISTEN ${EVENTS_CHANNEL}`);
      } catch (err) {
        await client.end().catch(() => undefined);
        throw err;
      }
      this.connection = client;
      // Every stream left (or the api stopped) while this connection was being made.
      if (this.listeners.size === 0 || this.closed) this.disconnect();
    })().finally(() => (this.connecting = undefined));
    return this.connecting;
  }

  private scheduleReconnect(): void {
    if (this.closed || this.listeners.size === 0 || this.reconnectTimer) return;
    this.reconnectTimer = setTimeout(() => {
      this.reconnectTimer = undefined;
      this.connect().then(
        () => {
          for (const listener of this.listeners) listener.catchUp();
        },
        (err: unknown) => {
          this.deps.logger.warn({ err }, 'event streams could not LISTEN again; retrying');
          this.scheduleReconnect();
        },
      );
    }, RECONNECT_MS);
    this.reconnectTimer.unref();
  }

  private disconnect(): void {
    clearTimeout(this.reconnectTimer);
    this.reconnectTimer = undefined;
    const client = this.connection;
    this.connection = undefined;
    void client?.end().catch(() => undefined);
  }

  private notified(payload: string): void {
    const notice = eventNotice.read(payload);
    // Only events of organisations a stream here follows are read.
    if (!notice || !this.followed.has(notice.orgId)) return;
    this.pending.push(notice.id);
    // Notifications of one commit arrive together: read them in one go, after the burst.
    this.reading ??= new Promise<void>((resolve) => setImmediate(resolve)).then(() => this.readPending());
  }

  private async readPending(): Promise<void> {
    try {
      while (this.pending.length > 0) {
        const ids = this.pending.splice(0, IDS_PER_READ);
        if (this.listeners.size === 0) continue;
        let events: EventRow[];
        try {
          events = await eventsByIds(this.deps.db, ids);
        } catch (err) {
          this.deps.logger.warn({ err }, 'event streams could not read notified events; catching up from the table');
          for (const listener of this.listeners) listener.catchUp();
          continue;
        }
        for (const listener of this.listeners) {
          const mine = events.filter((event) => event.orgId === listener.orgId && event.livemode === listener.livemode);
          if (mine.length > 0) listener.deliver(mine);
        }
      }
    } finally {
      this.reading = undefined;
    }
  }
}
