import http from 'node:http';
import type { AddressInfo } from 'node:net';

export interface RecordedRequest {
  method: string;
  path: string;
  headers: http.IncomingHttpHeaders;
  /** performance.now() when the request arrived. */
  at: number;
  status: number;
  retryAfter: string | undefined;
}

export interface RecordingProxy {
  url: string;
  requests: RecordedRequest[];
  close(): Promise<void>;
}

export interface RecordingProxyOptions {
  /**
   * A status to answer instead of forwarding (with a JSON error body, and `Retry-After` when given),
   * or undefined to forward.
   */
  fault?: (request: { method: string; path: string; headers: http.IncomingHttpHeaders }) => number | { status: number; retryAfter: string } | undefined;
  /** The client address the proxy names in `X-Forwarded-For`, as a load balancer does; unset: the client's headers go as sent. */
  forwardedFor?: string;
  /** Called after each request is recorded. */
  onRecord?: (request: RecordedRequest) => void;
  /** Rewrites the incoming path before forwarding (a base path in front of the api, say). */
  rewritePath?: (path: string) => string;
}

/**
 * A loopback HTTP proxy in front of the real api that records what a client sent, when, and what
 * it got back, and can fail chosen requests itself, as a load balancer in front of the api would.
 */
export async function startRecordingProxy(target: string, options: RecordingProxyOptions = {}): Promise<RecordingProxy> {
  const requests: RecordedRequest[] = [];
  const server = http.createServer((req, res) => {
    const at = performance.now();
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const method = req.method ?? 'GET';
      const path = req.url ?? '/';
      const record = (status: number, retryAfter: string | undefined) => {
        const entry = { method, path, headers: req.headers, at, status, retryAfter };
        requests.push(entry);
        options.onRecord?.(entry);
      };
      const fault = options.fault?.({ method, path, headers: req.headers });
      if (fault !== undefined) {
        const { status, retryAfter } = typeof fault === 'number' ? { status: fault, retryAfter: undefined } : fault;
        record(status, retryAfter);
        const body = status === 429 ? { detail: 'Too many requests at the proxy', code: 'RATE_LIMITED' } : { detail: 'Service unavailable at the proxy', code: 'UPSTREAM_UNAVAILABLE' };
        res.writeHead(status, { 'content-type': 'application/json', ...(retryAfter ? { 'retry-after': retryAfter } : {}) }).end(JSON.stringify(body));
        return;
      }
      const headers = Object.fromEntries(
        Object.entries(req.headers).filter((entry): entry is [string, string] => typeof entry[1] === 'string' && !['host', 'connection', 'content-length'].includes(entry[0])),
      );
      if (options.forwardedFor) headers['x-forwarded-for'] = options.forwardedFor;
      const body = chunks.length > 0 ? Buffer.concat(chunks) : undefined;
      fetch(`${target}${options.rewritePath ? options.rewritePath(path) : path}`, { method, headers, ...(body ? { body } : {}) })
        .then(async (upstream) => {
          const payload = Buffer.from(await upstream.arrayBuffer());
          const out: Record<string, string> = {};
          upstream.headers.forEach((value, name) => {
            if (!['content-length', 'content-encoding', 'transfer-encoding', 'connection'].includes(name)) out[name] = value;
          });
          record(upstream.status, upstream.headers.get('retry-after') ?? undefined);
          res.writeHead(upstream.status, out).end(payload);
        })
        .catch(() => res.writeHead(502).end());
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
