/**
 * A real PowerDNS Authoritative server (Debian's pdns-server with the gsqlite3 backend) on loopback
 * ports of its own, for the live DNS tests: its HTTP API for the adapter, its DNS port for
 * resolvers. `.ci/run` installs the packages; the schema is the one the backend package ships.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { promises as dnsPromises } from 'node:dns';
import os from 'node:os';
import path from 'node:path';
import { freePort } from '../../scripts/lib/temporalDevServer.js';
import { randomBase62 } from '../../src/ids.js';

const PDNS_SERVER = '/usr/sbin/pdns_server';
const SCHEMA_CANDIDATES = [
  '/usr/share/pdns-backend-sqlite3/schema/schema.sqlite3.sql',
  '/usr/share/doc/pdns-backend-sqlite3/schema.sqlite3.sql',
];

export interface PowerDns {
  /** The HTTP API's base URL, for `DNS_PROVIDER_URL`. */
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

/** A gsqlite3 database with the schema the backend package ships (through the sqlite3 CLI). */
async function initDatabase(file: string): Promise<void> {
  const schemaFile = SCHEMA_CANDIDATES.find((candidate) => existsSync(candidate));
  if (!schemaFile) throw new Error('pdns-backend-sqlite3 schema not found; install pdns-backend-sqlite3');
  const schema = await readFile(schemaFile, 'utf8');
  await new Promise<void>((resolve, reject) => {
    const child = spawn('sqlite3', [file], { stdio: ['pipe', 'ignore', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.once('error', reject);
    child.once('exit', (code) => (code === 0 ? resolve() : reject(new Error(`sqlite3 exited ${code}: ${stderr}`))));
    child.stdin.end(schema);
  });
}

async function waitForApi(apiUrl: string, apiKey: string, child: ChildProcess, output: () => string, timeoutMs = 15_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`pdns_server exited ${child.exitCode}:\n${output()}`);
    try {
      const res = await fetch(`${apiUrl}/api/v1/servers/localhost`, { headers: { 'X-API-Key': apiKey }, signal: AbortSignal.timeout(1_000) });
      if (res.ok) return;
    } catch {
      // not listening yet
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`PowerDNS API did not come up within ${timeoutMs} ms:\n${output()}`);
}

export async function startPowerDns(options: { /** Default true; false starts it as a deployment that forgot the setting. */ dnssec?: boolean } = {}): Promise<PowerDns> {
  if (!existsSync(PDNS_SERVER)) throw new Error(`${PDNS_SERVER} not found: install pdns-server and pdns-backend-sqlite3 (.ci/run does)`);
  const dir = await mkdtemp(path.join(os.tmpdir(), 'pdns-test-'));
  const apiKey = randomBase62(24);
  const [webPort, dnsPort] = [await freePort(), await freePort()];
  await initDatabase(path.join(dir, 'pdns.sqlite3'));
  const settings = {
    launch: 'gsqlite3',
    'gsqlite3-database': path.join(dir, 'pdns.sqlite3'),
    // Zones are signed through the API (DNSSEC): the backend keeps keys only with this on (docs/operations.md).
    'gsqlite3-dnssec': options.dnssec === false ? 'no' : 'yes',
    api: 'yes',
    'api-key': apiKey,
    webserver: 'yes',
    'webserver-address': '127.0.0.1',
    'webserver-port': webPort,
    'webserver-allow-from': '127.0.0.0/8',
    'local-address': '127.0.0.1',
    'local-port': dnsPort,
    daemon: 'no',
    guardian: 'no',
    'socket-dir': dir,
    // Answers change the moment the API has changed a zone: no packet or query caches.
    'cache-ttl': 0,
    'query-cache-ttl': 0,
    'negquery-cache-ttl': 0,
    // No look-ups of PowerDNS's security status on the internet.
    'security-poll-suffix': '',
    // ALIAS at the apex is answered as its target's A/AAAA, which PowerDNS looks up through
    // `resolver` (docs/operations.md). A deployment points it at a recursive resolver; here it is
    // this server itself, so targets in the zones it serves resolve without the internet.
    'expand-alias': 'yes',
    resolver: `127.0.0.1:${dnsPort}`,
    'receiver-threads': 1,
    'distributor-threads': 1,
    loglevel: 4,
  };
  await writeFile(path.join(dir, 'pdns.conf'), Object.entries(settings).map(([k, v]) => `${k}=${v}`).join('\n') + '\n');
  const apiUrl = `http://127.0.0.1:${webPort}`;
  let child: ChildProcess | undefined;
  let log = '';

  const start = async () => {
    const proc = spawn(PDNS_SERVER, [`--config-dir=${dir}`], { stdio: ['ignore', 'pipe', 'pipe'] });
    child = proc;
    proc.stdout.on('data', (chunk: Buffer) => (log += chunk.toString()));
    proc.stderr.on('data', (chunk: Buffer) => (log += chunk.toString()));
    try {
      await waitForApi(apiUrl, apiKey, proc, () => log);
    } catch (err) {
      proc.kill('SIGKILL');
      throw err;
    }
  };
  const stop = async () => {
    const proc = child;
    child = undefined;
    if (!proc || proc.exitCode !== null) return;
    const exited = new Promise((resolve) => proc.once('exit', resolve));
    proc.kill('SIGTERM');
    const timer = setTimeout(() => proc.kill('SIGKILL'), 5_000);
    await exited;
    clearTimeout(timer);
  };

  await start();
  return {
    apiUrl,
    apiKey,
    dnsPort,
    resolver: () => {
      const resolver = new dnsPromises.Resolver({ timeout: 2_000, tries: 2 });
      resolver.setServers([`127.0.0.1:${dnsPort}`]);
      return resolver;
    },
    start,
    stop,
    close: async () => {
      await stop();
      await rm(dir, { recursive: true, force: true });
    },
    output: () => log,
  };
}
