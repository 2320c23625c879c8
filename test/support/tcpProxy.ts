import net from 'node:net';
import type { AddressInfo } from 'node:net';

/**
 * A loopback TCP proxy in front of a shared server, so a test can make that server vanish for one
 * app without touching it: `refuse()` closes every connection and the listening port (connections
 * are refused), `reset()` keeps accepting but drops each connection at once, `hold()` forwards nothing
 * either way while keeping every connection open (a network partition: bytes wait as in TCP's
 * retransmissions, new connections are accepted and wait too), `restore()` brings it back.
 */
export interface TcpProxy {
  port: number;
  refuse(): Promise<void>;
  reset(): Promise<void>;
  hold(): void;
  restore(): Promise<void>;
  close(): Promise<void>;
}

export async function startTcpProxy(target: { host: string; port: number }): Promise<TcpProxy> {
  const sockets = new Set<net.Socket>();
  let mode: 'pass' | 'reset' = 'pass';
  let holding = false;
  let server: net.Server | undefined;
  let port = 0;

  const dropAll = () => {
    for (const socket of sockets) socket.destroy();
    sockets.clear();
  };

  const open = () =>
    new Promise<void>((resolve, reject) => {
      const s = net.createServer((client) => {
        if (mode === 'reset') {
          client.resetAndDestroy();
          return;
        }
        const upstream = net.connect(target.port, target.host);
        sockets.add(client).add(upstream);
        if (holding) {
          client.pause();
          upstream.pause();
        }
        const end = () => {
          client.destroy();
          upstream.destroy();
          sockets.delete(client);
          sockets.delete(upstream);
        };
        client.on('error', end).on('close', end);
        upstream.on('error', end).on('close', end);
        client.pipe(upstream).pipe(client);
      });
      s.once('error', reject);
      s.listen(port, '127.0.0.1', () => {
        port = (s.address() as AddressInfo).port;
        server = s;
        resolve();
      });
    });

  const shut = () =>
    new Promise<void>((resolve) => {
      dropAll();
      if (!server) return resolve();
      server.close(() => resolve());
      server = undefined;
    });

  await open();
  return {
    get port() {
      return port;
    },
    refuse: shut,
    reset: async () => {
      mode = 'reset';
      dropAll();
      if (!server) await open();
    },
    hold: () => {
      holding = true;
      for (const socket of sockets) socket.pause();
    },
    restore: async () => {
      mode = 'pass';
      holding = false;
      for (const socket of sockets) socket.resume();
      if (!server) await open();
    },
    close: shut,
  };
}

/** A proxy in front of the PostgreSQL server of `databaseUrl`, and that URL pointed at the proxy. */
export async function startDatabaseProxy(databaseUrl: string): Promise<{ proxy: TcpProxy; url: string }> {
  const shared = new URL(databaseUrl);
  const proxy = await startTcpProxy({ host: shared.hostname, port: Number(shared.port || 5432) });
  const proxied = new URL(shared);
  proxied.hostname = '127.0.0.1';
  proxied.port = String(proxy.port);
  return { proxy, url: proxied.toString() };
}
