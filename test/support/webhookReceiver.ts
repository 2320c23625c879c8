import http from 'node:http';
import type { AddressInfo } from 'node:net';

/** One POST as the receiver saw it. */
export interface ReceivedWebhook {
  /** The request's path and query, e.g. `/hooks/3`. */
  path: string;
  headers: Record<string, string>;
  body: string;
  /** performance.now() when the body had arrived. */
  at: number;
}

/** What the receiver does with its n-th request (1-based): answer a status, or never answer. */
export type Behaviour = (n: number) => number | 'hang';

export interface WebhookReceiver {
  url: string;
  received: ReceivedWebhook[];
  /** Requests whose body is JSON with this `type`. */
  ofType(type: string): ReceivedWebhook[];
  waitFor(predicate: (hook: ReceivedWebhook) => boolean, timeoutMs?: number): Promise<ReceivedWebhook>;
  waitForCount(count: number, timeoutMs?: number): Promise<ReceivedWebhook[]>;
  close(): Promise<void>;
}

/** A real HTTP server on loopback that records every webhook POSTed to it and answers as told. */
export async function startWebhookReceiver(behaviour: Behaviour = () => 200): Promise<WebhookReceiver> {
  const received: ReceivedWebhook[] = [];
  const waiters = new Set<() => void>();
  const hanging = new Set<http.ServerResponse>();
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const headers = Object.fromEntries(Object.entries(req.headers).map(([k, v]) => [k, Array.isArray(v) ? v.join(', ') : (v ?? '')]));
      received.push({ path: req.url ?? '', headers, body: Buffer.concat(chunks).toString('utf8'), at: performance.now() });
      for (const wake of waiters) wake();
      const answer = behaviour(received.length);
      if (answer === 'hang') {
        hanging.add(res);
        return;
      }
      res.writeHead(answer, { 'content-type': 'text/plain' }).end(answer < 300 ? 'ok' : 'no');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;

  async function until<T>(check: () => T | undefined, timeoutMs: number, what: string): Promise<T> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const found = check();
      if (found !== undefined) return found;
      if (Date.now() > deadline) throw new Error(`webhook receiver: timed out waiting for ${what} (got ${received.length})`);
      await new Promise<void>((resolve) => {
        const wake = () => {
          waiters.delete(wake);
          resolve();
        };
        waiters.add(wake);
        setTimeout(wake, 100);
      });
    }
  }

  return {
    url: `http://127.0.0.1:${port}/hooks`,
    received,
    ofType: (type) => received.filter((hook) => (JSON.parse(hook.body) as { type: string }).type === type),
    waitFor: (predicate, timeoutMs = 20_000) => until(() => received.find(predicate), timeoutMs, 'a matching webhook'),
    waitForCount: (count, timeoutMs = 20_000) => until(() => (received.length >= count ? received.slice(0, count) : undefined), timeoutMs, `${count} webhooks`),
    close: async () => {
      for (const res of hanging) res.destroy();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
