import { EventSourceParserStream } from 'eventsource-parser/stream';
import type { EventSourceMessage } from 'eventsource-parser';

/** An open `GET …/events/stream` as a test reads it: every message kept, waited for by predicate. */
export interface OpenEventStream {
  status: number;
  headers: Headers;
  /** The JSON error body of a refused stream. */
  error: { code?: string; detail?: unknown } | undefined;
  messages: EventSourceMessage[];
  /** The first message (kept or coming) that matches, within `timeoutMs`. */
  next(match: (message: EventSourceMessage) => boolean, timeoutMs?: number): Promise<EventSourceMessage>;
  /** Resolves when the server ends the stream. */
  closed: Promise<void>;
  close(): void;
}

export async function openEventStream(url: string, init: RequestInit): Promise<OpenEventStream> {
  const abort = new AbortController();
  const res = await fetch(url, { ...init, signal: abort.signal });
  const messages: EventSourceMessage[] = [];
  const waiters = new Set<() => void>();
  let closed: Promise<void> = Promise.resolve();
  const error = res.ok ? undefined : ((await res.json()) as { code?: string });
  if (res.ok && res.body) {
    const reader = res.body.pipeThrough(new TextDecoderStream()).pipeThrough(new EventSourceParserStream()).getReader();
    closed = (async () => {
      try {
        for (;;) {
          const { done, value } = await reader.read();
          if (done) return;
          messages.push(value);
          for (const check of waiters) check();
        }
      } catch {
        // Aborted by close().
      }
    })();
  }
  return {
    status: res.status,
    headers: res.headers,
    error,
    messages,
    closed,
    close: () => abort.abort(),
    next: (match, timeoutMs = 15_000) =>
      new Promise((resolve, reject) => {
        const timer = setTimeout(() => {
          waiters.delete(check);
          reject(new Error(`no matching message within ${timeoutMs} ms; got: ${messages.map((m) => `${m.event} ${m.data.slice(0, 80)}`).join('\n')}`));
        }, timeoutMs);
        const check = () => {
          const found = messages.find(match);
          if (!found) return;
          clearTimeout(timer);
          waiters.delete(check);
          resolve(found);
        };
        waiters.add(check);
        check();
      }),
  };
}
