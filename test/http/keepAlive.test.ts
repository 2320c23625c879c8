/**
 * Idle connections, as a proxy in front of the api uses them: it keeps each connection open for its
 * own idle timeout (often 60 s) and sends the next request down whichever one is free. The api must
 * keep them longer (docs/operations.md), or the proxy's request meets a closed socket and its client
 * gets a 502.
 */
import net from 'node:net';
import { once } from 'node:events';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../support/testApp.js';
import { DEFAULT_HTTP_TIMEOUTS, listen } from '../../src/http/listen.js';
import { createApp } from '../../src/app.js';

let app: TestApp;
beforeAll(async () => {
  app = await startTestApp();
});
afterAll(async () => {
  await app?.close();
});

interface RawResponse {
  status: number;
  headers: Record<string, string>;
}

/** One TCP connection sending requests one at a time and reading each response whole. */
class Connection {
  readonly socket: net.Socket;
  private buffered = Buffer.alloc(0);
  private waiting: (() => void) | undefined;
  closedAt: number | undefined;

  constructor(url: string) {
    const { hostname, port } = new URL(url);
    this.socket = net.connect(Number(port), hostname);
    this.socket.on('data', (chunk: Buffer) => {
      this.buffered = Buffer.concat([this.buffered, chunk]);
      this.waiting?.();
    });
    this.socket.on('close', () => {
      this.closedAt = Date.now();
      this.waiting?.();
    });
  }

  async get(path: string): Promise<RawResponse> {
    this.socket.write(`GET ${path} HTTP/1.1\r\nHost: api.test\r\n\r\n`);
    for (;;) {
      const response = this.take();
      if (response) return response;
      if (this.closedAt !== undefined) throw new Error(`the server closed the connection instead of answering ${path}`);
      await new Promise<void>((resolve) => (this.waiting = resolve));
    }
  }

  /** A whole response off the front of the buffer, when one has arrived. */
  private take(): RawResponse | undefined {
    const end = this.buffered.indexOf('\r\n\r\n');
    if (end < 0) return undefined;
    const [statusLine, ...lines] = this.buffered.subarray(0, end).toString('latin1').split('\r\n');
    const headers = Object.fromEntries(lines.map((line) => [line.slice(0, line.indexOf(':')).toLowerCase(), line.slice(line.indexOf(':') + 1).trim()]));
    const length = Number(headers['content-length'] ?? 0);
    if (this.buffered.length < end + 4 + length) return undefined;
    this.buffered = this.buffered.subarray(end + 4 + length);
    return { status: Number(statusLine!.split(' ')[1]), headers };
  }
}

describe('an idle connection', () => {
  it('is kept for 65 s by default and says so: a request sent on it after 6 s idle is answered', async () => {
    const connection = new Connection(app.url);
    try {
      const first = await connection.get('/healthz');
      expect(first.status).toBe(200);
      expect(first.headers['keep-alive']).toBe('timeout=65');
      // Past Node's own 5 s, as a proxy keeping its connections for 60 s would send.
      await new Promise((resolve) => setTimeout(resolve, 6_000));
      expect((await connection.get('/healthz')).status).toBe(200);
      expect(connection.closedAt).toBeUndefined();
    } finally {
      connection.socket.destroy();
    }
  }, 30_000);

  it('is closed by the api once it has been idle for the configured time', async () => {
    const server = await listen(createApp(app.deps), '127.0.0.1', 0, { ...DEFAULT_HTTP_TIMEOUTS, keepAliveTimeoutMs: 2_000 });
    const connection = new Connection(server.url);
    try {
      expect((await connection.get('/healthz')).headers['keep-alive']).toBe('timeout=2');
      const answered = Date.now();
      await once(connection.socket, 'close');
      expect(connection.closedAt! - answered).toBeGreaterThanOrEqual(1_900);
    } finally {
      connection.socket.destroy();
      await server.close(100);
    }
  });
});
