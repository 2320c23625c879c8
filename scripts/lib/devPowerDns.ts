/**
 * `npm run dev`'s DNS server for test-mode zones: a PowerDNS on loopback (DNS on PDNS_DEV_PORT,
 * 5300 by default; its API one above), its zones and key kept in `DATA_DIR/pdns/` across restarts.
 */
import { existsSync } from 'node:fs';
import { chmod, mkdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import { initPowerDnsDatabase, POWERDNS_PACKAGES, powerDnsInstalled, startPowerDnsServer } from './powerDnsServer.js';
import { portOpen } from './temporalDevServer.js';

export interface DevPowerDns {
  apiUrl: string;
  apiKey: string;
  dnsPort: number;
  stop: () => Promise<void>;
}

/** Started, or why not (one line for the banner). */
export type DevTestDns = { server: DevPowerDns } | { notStarted: string };

/** The API key, made once and kept beside the zones. */
async function apiKeyIn(dir: string): Promise<string> {
  const file = path.join(dir, 'api-key');
  if (existsSync(file)) return (await readFile(file, 'utf8')).trim();
  const key = randomBytes(24).toString('base64url');
  await writeFile(file, `${key}\n`, { mode: 0o600 });
  await chmod(file, 0o600);
  return key;
}

/**
 * `resolver` is where ALIAS targets are looked up; by default the server itself, so an ALIAS to a
 * name in a test zone answers offline (targets elsewhere need a recursive resolver: PDNS_DEV_RESOLVER).
 */
export async function startDevPowerDns(props: { dataDir: string; dnsPort: number; resolver: string | undefined }): Promise<DevTestDns> {
  if (!powerDnsInstalled()) return { notStarted: `test-mode zones are synthetic (no DNS server answers them): apt-get install ${POWERDNS_PACKAGES} to serve them` };
  const webPort = props.dnsPort + 1;
  for (const port of [props.dnsPort, webPort]) {
    if (await portOpen(port)) return { notStarted: `test-mode zones are synthetic: port ${port} is taken (set PDNS_DEV_PORT to another, its API goes one above)` };
  }
  const dir = path.resolve(props.dataDir, 'pdns');
  await mkdir(dir, { recursive: true });
  const dbFile = path.join(dir, 'pdns.sqlite3');
  if (!existsSync(dbFile)) await initPowerDnsDatabase(dbFile);
  const apiKey = await apiKeyIn(dir);
  const server = await startPowerDnsServer({ dir, dbFile, apiKey, webPort, dnsPort: props.dnsPort, resolver: props.resolver });
  return { server: { apiUrl: server.apiUrl, apiKey, dnsPort: props.dnsPort, stop: server.stop } };
}
