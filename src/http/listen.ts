import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type Koa from 'koa';

export interface ListeningServer {
  server: Server;
  url: string;
  /** Stops accepting, lets in-flight requests finish (up to `drainMs`), then closes the rest. */
  close(drainMs?: number): Promise<void>;
}

export interface HttpTimeouts {
  /** The whole request, headers and body, must arrive within this; then 408 and the socket closes. */
  requestTimeoutMs: number;
  /** The headers must arrive within this. */
  headersTimeoutMs: number;
}

/**
 * Node's defaults let a client that stalls its body hold a connection for 300 s (checked every
 * 30 s). Our bodies are at most 1 MB: 30 s is plenty for a slow client and short for a hostile one.
 */
export const DEFAULT_HTTP_TIMEOUTS: HttpTimeouts = { requestTimeoutMs: 30_000, headersTimeoutMs: 10_000 };

/**
 * `app` may be a function of the listening URL (`http://127.0.0.1:8080`, the port chosen when 0 was
 * asked): it is built once the address is known, before the first request is read.
 */
export function listen(
  app: Koa<never> | ((url: string) => Koa<never>),
  host: string,
  port: number,
  timeouts: HttpTimeouts = DEFAULT_HTTP_TIMEOUTS,
): Promise<ListeningServer> {
  return new Promise((resolve, reject) => {
    let handle = typeof app === 'function' ? undefined : app.callback();
    const server = createServer(
      {
        requestTimeout: timeouts.requestTimeoutMs,
        headersTimeout: Math.min(timeouts.headersTimeoutMs, timeouts.requestTimeoutMs),
        // How often expired requests are looked for: a fraction of the shortest timeout.
        connectionsCheckingInterval: Math.max(100, Math.min(timeouts.headersTimeoutMs, 1_000)),
      },
      (req, res) => void handle!(req, res),
    );
    server.listen(port, host);
    server.once('error', reject);
    server.once('listening', () => {
      const address = server.address() as AddressInfo;
      const shownHost = address.family === 'IPv6' ? `[${address.address}]` : address.address;
      const url = `http://${shownHost}:${address.port}`;
      // 'listening' runs before any connection's callbacks: no request finds `handle` unset.
      handle ??= (app as (url: string) => Koa<never>)(url).callback();
      resolve({
        server,
        url,
        close: (drainMs = 10_000) =>
          new Promise<void>((done) => {
            const force = setTimeout(() => server.closeAllConnections(), drainMs);
            server.close(() => {
              clearTimeout(force);
              done();
            });
            server.closeIdleConnections();
          }),
      });
    });
  });
}
