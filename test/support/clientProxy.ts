import http from 'node:http';
import type { AddressInfo, Socket } from 'node:net';

export interface ClientProxy {
  url: string;
  close(): Promise<void>;
}

/**
 * The reverse proxy of a deployment, on loopback in front of a test app: every request is passed on
 * with `X-Forwarded-For: <client>` (the app trusts loopback as its proxy), answers streamed back as
 * they come (event streams included). A client that cannot set the header itself, a process such as
 * the command line, is then a client of its own address (test/support/http.ts).
 */
export async function startClientProxy(target: string, client: string): Promise<ClientProxy> {
  const upstream = new URL(target);
  const sockets = new Set<Socket>();
  const server = http.createServer((req, res) => {
    const forwarded = http.request(
      { host: upstream.hostname, port: upstream.port, method: req.method, path: req.url, headers: { ...req.headers, host: upstream.host, 'x-forwarded-for': client } },
      (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(res);
      },
    );
    forwarded.on('error', () => res.destroy());
    res.on('close', () => forwarded.destroy());
    req.pipe(forwarded);
  });
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}
