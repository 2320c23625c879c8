import { setTimeout as sleep } from 'node:timers/promises';
import { ApiError, type ErrorCode, type KnownErrorCode } from '../../client/src/index.js';
import type { Context } from './context.js';
import { CliError } from './errors.js';

interface Ready {
  org_id: string;
  livemode: boolean;
  signing_secret: string;
}

/** One event as the stream carries it: what a webhook endpoint would be sent. */
interface Delivery {
  event_id: string;
  type: string;
  headers: Record<string, string>;
  body: string;
}

export interface ListenProps {
  org: string;
  forwardTo: string | undefined;
  types: string[] | undefined;
  printSecret: boolean;
}

/** Stream endings that no reconnection mends: the credential or its rights are gone. */
const FINAL: Partial<Record<ErrorCode, 'unauthenticated' | 'forbidden'>> = {
  INVALID_TOKEN: 'unauthenticated',
  API_KEY_REVOKED: 'unauthenticated',
  NOT_AUTHENTICATED: 'unauthenticated',
  INSUFFICIENT_SCOPE: 'forbidden',
  NOT_ORG_MEMBER: 'forbidden',
  IP_NOT_ALLOWED: 'forbidden',
  FORBIDDEN: 'forbidden',
} satisfies Partial<Record<KnownErrorCode, 'unauthenticated' | 'forbidden'>>;
const FORWARD_TIMEOUT_MS = 10_000;
const MAX_BACKOFF_MS = 30_000;

const clock = () => new Date().toISOString().slice(11, 19);

/**
 * `webhooks listen`: follows the organisation's event stream (`GET …/events/stream`) and POSTs each
 * event to `forwardTo` with the body and Standard Webhooks headers it came with, re-signing nothing, so
 * the local receiver verifies it with the stream's signing secret exactly as it would a real delivery.
 * One line per delivery with the local answer. A stream that ends or drops is followed again from the
 * last event forwarded (Last-Event-ID); an expired sign-in is refreshed first. Runs until interrupted.
 */
export async function listen(ctx: Context, props: ListenProps): Promise<void> {
  const { io, signal } = ctx;
  const session = await ctx.session();
  const { EventSourceParserStream } = await import('eventsource-parser/stream');
  let lastEventId: string | undefined;
  let announced = false;
  let backoffMs = 1_000;

  const forward = async (delivery: Delivery) => {
    const started = performance.now();
    const base = { type: 'delivery', event_id: delivery.event_id, event_type: delivery.type };
    const elapsed = () => Math.round(performance.now() - started);
    try {
      const res = await fetch(props.forwardTo!, {
        method: 'POST',
        headers: delivery.headers,
        body: delivery.body,
        redirect: 'manual',
        signal: AbortSignal.any([signal, AbortSignal.timeout(FORWARD_TIMEOUT_MS)]),
      });
      await res.body?.cancel();
      const ms = elapsed();
      const status = `${res.status} ${res.statusText}`.trim();
      const shown = res.ok ? io.paint.green(status) : io.paint.red(status);
      io.line({ ...base, status: res.status, duration_ms: ms }, `${clock()}  ${delivery.type.padEnd(22)} ${delivery.event_id}  → ${shown}  ${io.paint.dim(`${ms} ms`)}`);
    } catch (err) {
      if (signal.aborted) throw err;
      const cause = (err as { cause?: { code?: string } }).cause?.code ?? (err as Error).name;
      const why = cause === 'TimeoutError' ? `no answer within ${FORWARD_TIMEOUT_MS / 1000} s` : `could not connect (${cause})`;
      io.line({ ...base, status: null, duration_ms: elapsed(), error: why }, `${clock()}  ${delivery.type.padEnd(22)} ${delivery.event_id}  → ${io.paint.red(why)}`);
    }
  };

  const announce = (ready: Ready) => {
    if (announced) return;
    announced = true;
    const mode = ready.livemode ? 'live' : 'test';
    if (io.json) io.line({ type: 'ready', ...ready, forward_to: props.forwardTo }, '');
    else {
      const p = io.errPaint;
      io.notice(`${p.green('Ready.')} Forwarding ${mode}-mode events of ${ready.org_id}${props.types ? ` (${props.types.join(', ')})` : ''} to ${p.bold(props.forwardTo!)}`);
      io.notice(`Webhook signing secret: ${p.bold(ready.signing_secret)} ${p.dim('(yours here, the same every time)')}`);
      io.hint('Ctrl-C stops.');
    }
  };

  for (;;) {
    let ended: { code: ErrorCode; detail: string } | undefined;
    try {
      const header = lastEventId ? { 'last-event-id': lastEventId } : {};
      const query = props.types ? { types: props.types.join(',') } : {};
      const body = await session.api.streamEvents({ path: { org_oid: props.org }, query, header }, { signal });
      const messages = body.pipeThrough(new TextDecoderStream()).pipeThrough(new EventSourceParserStream()).getReader();
      for (;;) {
        const { done, value } = await messages.read();
        if (done) break;
        if (value.event === 'ready') {
          const ready = JSON.parse(value.data) as Ready;
          if (props.printSecret) {
            await messages.cancel();
            io.result({ signing_secret: ready.signing_secret }, [ready.signing_secret]);
            return;
          }
          announce(ready);
          backoffMs = 1_000;
        } else if (value.event === 'delivery') {
          const delivery = JSON.parse(value.data) as Delivery;
          await forward(delivery);
          lastEventId = value.id ?? delivery.event_id;
        } else if (value.event === 'end') {
          ended = JSON.parse(value.data) as { code: ErrorCode; detail: string };
        }
      }
    } catch (err) {
      if (signal.aborted) return io.hint('Stopped.');
      if (err instanceof ApiError && err.status !== 429 && err.status < 500) {
        if (!err.is('TOKEN_EXPIRED') || session.credentialKind !== 'login') throw err;
        ended = { code: err.code, detail: typeof err.detail === 'string' ? err.detail : err.message };
      } else if (err instanceof ApiError || err instanceof TypeError || (err as Error).name === 'AbortError' || (err as Error).name === 'TypeError') {
        io.hint(`${clock()}  the stream dropped (${err instanceof ApiError ? err.code : (err as Error).message}); reconnecting`);
      } else throw err;
    }
    if (ended) {
      const final = FINAL[ended.code];
      if (final) throw new CliError(ended.detail, final, ended.code);
      if (ended.code === ('TOKEN_EXPIRED' satisfies KnownErrorCode)) {
        await session.refresh();
        continue;
      }
      io.hint(`${clock()}  the stream ended (${ended.code}); reconnecting`);
    }
    try {
      await sleep(backoffMs, undefined, { signal });
    } catch {
      return io.hint('Stopped.');
    }
    backoffMs = Math.min(backoffMs * 2, MAX_BACKOFF_MS);
  }
}
