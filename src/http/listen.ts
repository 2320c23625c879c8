import { createServer, type Server } from 'node:http';
import type { Duplex } from 'node:stream';
import type { AddressInfo } from 'node:net';
import type Koa from 'koa';
import type { ErrorCode } from './errorCodes.js';
import { PortTakenError } from './portTaken.js';

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
  /** An idle connection is kept this long for the client's next request (the two above do not run meanwhile). */
  keepAliveTimeoutMs: number;
}

/**
 * Node's defaults let a client that stalls its body hold a connection for 300 s (checked every
 * 30 s). Our bodies are at most 1 MB: 30 s is plenty for a slow client and short for a hostile one.
 * Node closes an idle connection after 5 s; a proxy in front keeps its connections for longer (60 s
 * is common) and answers 502 when it reuses one the api has just closed, so the api keeps them
 * longer than the proxy does (docs/operations.md).
 */
export const DEFAULT_HTTP_TIMEOUTS: HttpTimeouts = { requestTimeoutMs: 30_000, headersTimeoutMs: 10_000, keepAliveTimeoutMs: 65_000 };

/**
 * What Node answers itself, before Koa sees a request (a stalled client, a request line and headers
 * past 16 KB, bytes that are not HTTP), as Node would, but with the `{detail, code}` body every error
 * of this API has.
 */
function answerClientError(err: NodeJS.ErrnoException, socket: Duplex): void {
  // As Node itself: never write into a response already under way (its bytes would be corrupted).
  const inFlight = (socket as Duplex & { _httpMessage?: { headersSent?: boolean } })._httpMessage;
  if (!socket.writable || err.code === 'ECONNRESET' || inFlight?.headersSent) {
    socket.destroy();
    return;
  }
  const [status, reason, body]: [number, string, { detail: string; code: ErrorCode }] =
    err.code === 'HPE_HEADER_OVERFLOW'
      ? [431, 'Request Header Fields Too Large', { detail: 'The request line and headers must fit in 16 KB', code: 'PAYLOAD_TOO_LARGE' }]
      : err.code === 'ERR_HTTP_REQUEST_TIMEOUT'
        ? [408, 'Request Timeout', { detail: 'The request did not arrive in time', code: 'REQUEST_TIMEOUT' }]
        : [400, 'Bad Request', { detail: 'Not a valid HTTP request', code: 'INVALID_REQUEST' }];
  const json = JSON.stringify(body);
  socket.end(`HTTP/1.1 ${status} ${reason}\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(json)}\r\nConnection: close\r\n\r\n${json}`);
}

/**
 * `app` may be a function of the listening URL (`http://127.0.0.1:8080`, the port chosen when 0 was
 * asked): it is built once the address is known, before the first request is read. A port already
 * taken is a PortTakenError naming `portVariable`, the setting that moves it.
 */
export function listen(
  app: Koa<never> | ((url: string) => Koa<never>),
  host: string,
  port: number,
  timeouts: HttpTimeouts = DEFAULT_HTTP_TIMEOUTS,
  portVariable = 'the port',
): Promise<ListeningServer> {
  return new Promise((resolve, reject) => {
    let handle = typeof app === 'function' ? undefined : app.callback();
    const server = createServer(
      {
        requestTimeout: timeouts.requestTimeoutMs,
        headersTimeout: Math.min(timeouts.headersTimeoutMs, timeouts.requestTimeoutMs),
        // How often expired requests are looked for: a fraction of the shortest timeout.
        connectionsCheckingInterval: Math.max(100, Math.min(timeouts.headersTimeoutMs, 1_000)),
        keepAliveTimeout: timeouts.keepAliveTimeoutMs,
      },
      (req, res) => void handle!(req, res),
    );
    server.on('clientError', answerClientError);
    server.listen(port, host);
    server.once('error', (err: NodeJS.ErrnoException) =>
      reject(err.code === 'EADDRINUSE' || err.code === 'EACCES' ? new PortTakenError(host, port, portVariable, err.code) : err),
    );
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
