import type { ServerResponse } from 'node:http';
import type { Db } from '../../db/pool.js';
import type { PageCursor } from '../../db/keyset.js';
import type { Mode } from '../../db/modeScope.js';
import type { Logger } from '../../logger.js';
import { ApiError } from '../../errors.js';
import { eventsAfter, type EventAudience, type EventRow, type EventType } from './events.repository.js';
import { eventVisibleTo } from './eventDomains.js';
import type { EventStreamHub, StreamListener } from './eventStreamHub.js';
import { signedDelivery } from './signing.js';

/** A comment line now and then, so proxies and clients see the stream is alive. */
export const HEARTBEAT_MS = 15_000;
/** How often a stream checks its caller may still read the organisation's events (at once, too, when its key changes). */
export const RECHECK_MS = 10_000;
/** Bytes written and not yet taken by the client before the stream gives up on it (it resumes with Last-Event-ID). */
const MAX_UNREAD_BYTES = 4 * 1024 * 1024;
const PAGE = 500;
/**
 * How far before the last event sent a catch-up reads again: `created_at` is its transaction's start,
 * so a long transaction commits events older than ones already sent. Repeats are recognised by id.
 */
const LOOKBACK_MS = 30_000;
const REMEMBERED_IDS = 20_000;

export interface EventStreamProps {
  db: Db;
  hub: EventStreamHub;
  logger: Logger;
  res: ServerResponse;
  mode: Mode;
  orgId: string;
  types: readonly EventType[] | undefined;
  /** The caller key's restrictions: only the events of its domains (and those about none) are sent. */
  audience: EventAudience;
  /** Signs every delivery (src/features/webhooks/signing.ts, streamSigningSecret). */
  secret: string;
  /** Nothing at or before this is sent: the event named by Last-Event-ID, or the moment the stream opened. */
  after: PageCursor;
  /** Throws an ApiError once the caller may no longer read (key deleted or its restrictions changed, token expired, membership gone). */
  recheck(): Promise<void>;
  /**
   * Calls its argument whenever the caller's credential may have changed (an API key updated,
   * deleted or revoked), so the stream checks at once rather than at its next RECHECK_MS; returns
   * how to stop. Absent for a session.
   */
  watchCredential?: (changed: () => void) => () => void;
  /** Keeps this stream's slots; false when they were lost. */
  renewSlot(): Promise<boolean>;
  /** How often renewSlot is called: a third of the slots' lifetime. */
  renewSlotEveryMs: number;
  /** Called once, when the stream has ended for whatever reason. */
  onEnd(): void;
}

const later = (a: PageCursor, b: PageCursor) => a.createdAt.getTime() > b.createdAt.getTime() || (a.createdAt.getTime() === b.createdAt.getTime() && a.id > b.id);

/**
 * One Server-Sent Events stream of an organisation's events in one mode: a `ready` event with the
 * signing secret, then one `delivery` per event (its id as the SSE id, and the exact body and Standard
 * Webhooks headers an endpoint would get), oldest first, at least once: a client resuming with
 * Last-Event-ID may see an event again and deduplicates on `webhook-id`, as for webhooks. It ends with
 * an `end` event saying why (`{code, detail}`), or when the client goes.
 */
export class EventStream implements StreamListener {
  readonly orgId: string;
  readonly livemode: boolean;
  private readonly types: ReadonlySet<EventType> | undefined;
  /** Ids sent lately (insertion order), so a catch-up and a notification never send one event twice. */
  private readonly sent = new Map<string, PageCursor>();
  private last: PageCursor;
  /** Until the first catch-up ends, events told by the hub wait (in `held`), so nothing is sent out of order. */
  private starting = true;
  private catchingUp: Promise<void> | undefined;
  private catchUpAgain = false;
  private held: EventRow[] = [];
  private ended = false;
  private readonly timers: NodeJS.Timeout[] = [];
  private unlisten: (() => void) | undefined;
  private unwatch: (() => void) | undefined;

  constructor(private readonly props: EventStreamProps) {
    this.orgId = props.orgId;
    this.livemode = props.mode.livemode;
    this.types = props.types ? new Set(props.types) : undefined;
    this.last = props.after;
  }

  /** Writes the head and `ready`, listens (holding what it is told), reads what came after `after`, then sends what it held. */
  async start(): Promise<void> {
    const { res } = this.props;
    // Headers set before (X-Request-Id, the rate limit's) go out with these.
    res.writeHead(200, { 'content-type': 'text/event-stream; charset=utf-8', 'cache-control': 'no-store', 'x-accel-buffering': 'no' });
    res.on('close', () => this.finish());
    this.write(`retry: 2000\n\n`);
    this.write(this.message('ready', { org_id: this.orgId, livemode: this.livemode, types: this.props.types ?? null, signing_secret: this.props.secret }));
    this.timers.push(
      setInterval(() => this.write(': keep-alive\n\n'), HEARTBEAT_MS),
      setInterval(() => void this.check(), RECHECK_MS),
      setInterval(() => void this.renew(), this.props.renewSlotEveryMs),
    );
    this.unwatch = this.props.watchCredential?.(() => void this.check());
    try {
      this.unlisten = await this.props.hub.add(this);
    } catch (err) {
      this.props.logger.warn({ err }, 'event stream could not listen for events');
      this.stop('UNAVAILABLE', 'Events cannot be followed right now; reconnect in a moment');
      return;
    }
    if (this.ended) this.unlisten();
    else this.catchUp();
  }

  deliver(events: EventRow[]): void {
    if (this.starting || this.catchingUp) this.held.push(...events);
    else for (const event of events) this.send(event);
  }

  catchUp(): void {
    if (this.catchingUp) {
      this.catchUpAgain = true;
      return;
    }
    this.catchingUp = this.readSince().finally(() => {
      this.catchingUp = undefined;
      this.starting = false;
      const held = this.held;
      this.held = [];
      for (const event of held) this.send(event);
      if (this.catchUpAgain) {
        this.catchUpAgain = false;
        this.catchUp();
      }
    });
  }

  end(): void {
    this.stop('SHUTTING_DOWN', 'The server is restarting; reconnect with Last-Event-ID to resume');
  }

  private async readSince(): Promise<void> {
    const floor = this.props.after;
    const back = new Date(this.last.createdAt.getTime() - LOOKBACK_MS);
    let from: PageCursor = later({ createdAt: back, id: '' }, floor) ? { createdAt: back, id: '' } : floor;
    try {
      for (;;) {
        if (this.ended) return;
        const page = await eventsAfter(this.props.db, this.props.mode, { orgId: this.orgId, after: from, types: this.props.types, audience: this.props.audience, limit: PAGE });
        for (const event of page) this.send(event);
        if (page.length < PAGE) return;
        from = { createdAt: page.at(-1)!.createdAt, id: page.at(-1)!.id };
      }
    } catch (err) {
      this.props.logger.warn({ err }, 'event stream could not catch up');
      this.stop('UNAVAILABLE', 'Events cannot be read right now; reconnect with Last-Event-ID to resume');
    }
  }

  private send(event: EventRow): void {
    if (this.ended || this.sent.has(event.id)) return;
    if (this.types && !this.types.has(event.type)) return;
    if (!eventVisibleTo(this.props.audience, event.domain)) return;
    const at = { createdAt: event.createdAt, id: event.id };
    if (!later(at, this.props.after)) return;
    const { body, headers } = signedDelivery(event, [this.props.secret]);
    this.write(this.message('delivery', { event_id: event.id, type: event.type, headers, body }, event.id));
    this.sent.set(event.id, at);
    if (this.sent.size > REMEMBERED_IDS) this.sent.delete(this.sent.keys().next().value!);
    if (later(at, this.last)) this.last = at;
    if (this.props.res.writableLength > MAX_UNREAD_BYTES) {
      this.stop('STREAM_TOO_SLOW', 'The client read too slowly; reconnect with Last-Event-ID to resume');
    }
  }

  private async check(): Promise<void> {
    if (this.ended) return;
    try {
      await this.props.recheck();
    } catch (err) {
      if (err instanceof ApiError) this.stop(err.code, typeof err.detail === 'string' ? err.detail : err.message);
      else this.props.logger.warn({ err }, 'event stream could not check its caller; trying again later');
    }
  }

  private async renew(): Promise<void> {
    try {
      if (!(await this.props.renewSlot())) this.stop('EVENT_STREAM_LIMIT', 'The stream lost its place; reconnect with Last-Event-ID to resume');
    } catch (err) {
      this.props.logger.warn({ err }, 'event stream could not renew its place; trying again later');
    }
  }

  private message(event: string, data: unknown, id?: string): string {
    return `${id ? `id: ${id}\n` : ''}event: ${event}\ndata: ${JSON.stringify(data)}\n\n`;
  }

  private write(text: string): void {
    if (!this.ended && !this.props.res.writableEnded) this.props.res.write(text);
  }

  /** Says why the stream ends, then ends it. */
  private stop(code: string, detail: string): void {
    this.write(this.message('end', { code, detail }));
    this.props.res.end();
    this.finish();
  }

  private finish(): void {
    if (this.ended) return;
    this.ended = true;
    for (const timer of this.timers) clearInterval(timer);
    this.unwatch?.();
    this.unlisten?.();
    this.props.onEnd();
  }
}
