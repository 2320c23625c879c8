import net from 'node:net';

/**
 * A loopback TCP proxy in front of a real server (PostgreSQL, Temporal, PowerDNS's API) that can hold
 * the server's replies: requests still reach the server and run, but their answers wait until
 * release(). This is how a test makes a reply arrive late without mocking the client.
 */
export class HoldingProxy {
  private holding = false;
  private held: { client: net.Socket; chunk: Buffer }[] = [];
  private readonly closeOnRelease = new Set<net.Socket>();
  private readonly sockets = new Set<net.Socket>();
  private readonly waiters = new Set<() => void>();

  private readonly server: net.Server;

  private constructor(target: { host: string; port: number }) {
    this.server = net.createServer((client) => this.connect(client, target));
  }

  get port(): number {
    return (this.server.address() as net.AddressInfo).port;
  }

  static async start(target: { host: string; port: number }): Promise<HoldingProxy> {
    const proxy = new HoldingProxy(target);
    await new Promise<void>((resolve) => proxy.server.listen(0, '127.0.0.1', resolve));
    return proxy;
  }

  /** `databaseUrl` with its host and port pointing at this proxy. */
  url(databaseUrl: string): string {
    const url = new URL(databaseUrl);
    url.hostname = '127.0.0.1';
    url.port = String(this.port);
    return url.toString();
  }

  hold(): void {
    this.holding = true;
  }

  /** Resolves once some reply is being held: the server has run the query and answered. */
  async waitForHeldReply(timeoutMs = 5_000): Promise<void> {
    if (this.held.length > 0) return;
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => {
        this.waiters.delete(done);
        reject(new Error(`no reply to hold within ${timeoutMs} ms`));
      }, timeoutMs);
      const done = () => {
        clearTimeout(timer);
        this.waiters.delete(done);
        resolve();
      };
      this.waiters.add(done);
    });
  }

  /** Stops holding and delivers every held reply, in order, to the sockets still open. */
  release(): void {
    this.holding = false;
    const held = this.held;
    this.held = [];
    for (const { client, chunk } of held) if (!client.destroyed) client.write(chunk);
    for (const client of this.closeOnRelease) client.end();
    this.closeOnRelease.clear();
  }

  async close(): Promise<void> {
    this.release();
    for (const socket of this.sockets) socket.destroy();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  private connect(client: net.Socket, target: { host: string; port: number }): void {
    const upstream = net.connect(target.port, target.host);
    for (const socket of [client, upstream]) {
      this.sockets.add(socket);
      socket.on('close', () => this.sockets.delete(socket));
      socket.on('error', () => undefined);
    }
    client.on('data', (chunk: Buffer) => upstream.write(chunk));
    upstream.on('data', (chunk: Buffer) => {
      if (!this.holding) {
        client.write(chunk);
        return;
      }
      this.held.push({ client, chunk });
      for (const waiter of [...this.waiters]) waiter();
    });
    client.on('close', () => upstream.destroy());
    // A server that closes after answering (HTTP's Connection: close) has its held answer delivered first.
    upstream.on('close', () => {
      if (this.held.some((held) => held.client === client)) this.closeOnRelease.add(client);
      else client.destroy();
    });
  }
}
