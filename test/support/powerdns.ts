/**
 * A real PowerDNS Authoritative server (Debian's pdns-server with the gsqlite3 backend) on loopback
 * ports of its own, for the DNS tests: its HTTP API for the adapter, its DNS port for resolvers.
 * `.ci/run` installs the packages; how it is started is shared with `npm run dev`
 * (scripts/lib/powerDnsServer.ts).
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { promises as dnsPromises } from 'node:dns';
import os from 'node:os';
import path from 'node:path';
import { freePort } from '../../scripts/lib/temporalDevServer.js';
import { initPowerDnsDatabase, startPowerDnsServer } from '../../scripts/lib/powerDnsServer.js';
import { randomBase62 } from '../../src/ids.js';

export interface PowerDns {
  /** The HTTP API's base URL, for `DNS_PROVIDER_URL` (or `DNS_TEST_PROVIDER_URL`). */
  apiUrl: string;
  apiKey: string;
  dnsPort: number;
  /** A fresh resolver (no cache carried between queries) pointed at this server's DNS port. */
  resolver(): dnsPromises.Resolver;
  /** Stops the server (the provider-down tests); `start` brings it back on the same ports and data. */
  stop(): Promise<void>;
  start(): Promise<void>;
  /** Stops it and removes its files. */
  close(): Promise<void>;
  output(): string;
}

/**
 * ALIAS targets are looked up through the server itself, so targets in the zones it serves resolve
 * without the internet (a deployment points `resolver` at a recursive resolver).
 */
export async function startPowerDns(options: { /** Default true; false starts it as a deployment that forgot the setting. */ dnssec?: boolean } = {}): Promise<PowerDns> {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'pdns-test-'));
  const apiKey = randomBase62(24);
  const [webPort, dnsPort] = [await freePort(), await freePort()];
  const dbFile = path.join(dir, 'pdns.sqlite3');
  await initPowerDnsDatabase(dbFile);
  const server = await startPowerDnsServer({ dir, dbFile, apiKey, webPort, dnsPort, dnssec: options.dnssec });
  return {
    apiUrl: server.apiUrl,
    apiKey,
    dnsPort,
    resolver: () => {
      const resolver = new dnsPromises.Resolver({ timeout: 2_000, tries: 2 });
      resolver.setServers([`127.0.0.1:${dnsPort}`]);
      return resolver;
    },
    start: server.start,
    stop: server.stop,
    close: async () => {
      await server.stop();
      await rm(dir, { recursive: true, force: true });
    },
    output: server.output,
  };
}
