/**
 * Starting a PowerDNS Authoritative server (Debian's pdns-server with its gsqlite3 backend) on
 * loopback: `npm run dev` serves test-mode zones from one (state in `.data/pdns/`), and the DNS
 * tests start one each (test/support/powerdns.ts). The settings are a deployment's
 * (docs/operations.md, PowerDNS settings): DNSSEC-capable backend, ALIAS expanded through a resolver.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';

export const PDNS_SERVER = '/usr/sbin/pdns_server';
const SCHEMA_CANDIDATES = ['/usr/share/pdns-backend-sqlite3/schema/schema.sqlite3.sql', '/usr/share/doc/pdns-backend-sqlite3/schema.sqlite3.sql'];

/** Debian's packages that provide it; `.ci/run` installs them, a developer with `apt-get install`. */
export const POWERDNS_PACKAGES = 'pdns-server pdns-backend-sqlite3 sqlite3';

/** Whether the server, its sqlite3 backend's schema and the sqlite3 CLI (to load it) are installed. */
export function powerDnsInstalled(): boolean {
  return existsSync(PDNS_SERVER) && SCHEMA_CANDIDATES.some((file) => existsSync(file)) && ['/usr/bin/sqlite3', '/bin/sqlite3'].some((file) => existsSync(file));
}

/** A gsqlite3 database with the schema the backend package ships (through the sqlite3 CLI). */
export async function initPowerDnsDatabase(file: string): Promise<void> {
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

export interface PowerDnsServerProps {
  /** Holds pdns.conf and the control socket; the database may be elsewhere. */
  dir: string;
  /** The gsqlite3 database (initPowerDnsDatabase makes one). */
  dbFile: string;
  apiKey: string;
  webPort: number;
  dnsPort: number;
  /** Where ALIAS targets are looked up (`address[:port]`); default this server itself, so targets in its own zones resolve. */
  resolver?: string;
  /** Default true; false starts it as a deployment that forgot the setting. */
  dnssec?: boolean;
}

export interface PowerDnsServer {
  /** The HTTP API's base URL (for DNS_PROVIDER_URL or DNS_TEST_PROVIDER_URL). */
  apiUrl: string;
  /** Stops it; `start` brings it back on the same ports and data. */
  stop: () => Promise<void>;
  start: () => Promise<void>;
  output: () => string;
}

/** PowerDNS's API request size limit, in MB: room for the largest zone file's change (docs/operations.md, PowerDNS settings). */
export const POWERDNS_MAX_BODY_MB = 32;

function settings(props: PowerDnsServerProps): Record<string, string | number> {
  return {
    launch: 'gsqlite3',
    'gsqlite3-database': props.dbFile,
    // Zones are signed through the API (DNSSEC): the backend keeps keys only with this on (docs/operations.md).
    'gsqlite3-dnssec': props.dnssec === false ? 'no' : 'yes',
    api: 'yes',
    'api-key': props.apiKey,
    webserver: 'yes',
    'webserver-address': '127.0.0.1',
    'webserver-port': props.webPort,
    'webserver-allow-from': '127.0.0.0/8',
    // The largest zone file accepted is one PATCH of several MB: PowerDNS refuses over 2 MB unless told (docs/operations.md).
    'webserver-max-bodysize': POWERDNS_MAX_BODY_MB,
    'local-address': '127.0.0.1',
    'local-port': props.dnsPort,
    daemon: 'no',
    guardian: 'no',
    'socket-dir': props.dir,
    // Answers change the moment the API has changed a zone: no packet or query caches.
    'cache-ttl': 0,
    'query-cache-ttl': 0,
    'negquery-cache-ttl': 0,
    // No look-ups of PowerDNS's security status on the internet.
    'security-poll-suffix': '',
    // ALIAS at the apex is answered as its target's A/AAAA, which PowerDNS looks up through `resolver`.
    'expand-alias': 'yes',
    resolver: props.resolver ?? `127.0.0.1:${props.dnsPort}`,
    // Zones with transfers are of kind Master: NOTIFY to their secondaries, AXFR/IXFR only signed
    // with their TSIG keys. No address may transfer a zone unsigned (the default lets loopback).
    primary: 'yes',
    'allow-axfr-ips': '',
    // Secondaries receive an ALIAS as the addresses it answers with: other servers do not know the type.
    'outgoing-axfr-expand-alias': 'yes',
    'receiver-threads': 1,
    'distributor-threads': 1,
    loglevel: 4,
  };
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

/** Writes its pdns.conf and starts it; answers once its API does. The server's output is kept (`output`), not printed. */
export async function startPowerDnsServer(props: PowerDnsServerProps): Promise<PowerDnsServer> {
  if (!existsSync(PDNS_SERVER)) throw new Error(`${PDNS_SERVER} not found: install ${POWERDNS_PACKAGES}`);
  await writeFile(
    path.join(props.dir, 'pdns.conf'),
    Object.entries(settings(props))
      .map(([k, v]) => `${k}=${v}`)
      .join('\n') + '\n',
  );
  const apiUrl = `http://127.0.0.1:${props.webPort}`;
  let child: ChildProcess | undefined;
  let log = '';

  const start = async () => {
    const proc = spawn(PDNS_SERVER, [`--config-dir=${props.dir}`], { stdio: ['ignore', 'pipe', 'pipe'] });
    child = proc;
    // Kept short: a long-running dev server logs every start and stop.
    const keep = (chunk: Buffer) => (log = (log + chunk.toString()).slice(-100_000));
    proc.stdout.on('data', keep);
    proc.stderr.on('data', keep);
    try {
      await waitForApi(apiUrl, props.apiKey, proc, () => log);
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
  return { apiUrl, start, stop, output: () => log };
}
