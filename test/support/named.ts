/**
 * BIND's `named` (Debian's bind9; `.ci/run` installs it) on a loopback port of its own, as a real
 * secondary of our PowerDNS (zone transfers out) or as a customer's primary (transfers in).
 */
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { freePort } from '../../scripts/lib/temporalDevServer.js';

const run = promisify(execFile);

export interface NamedKey {
  name: string;
  secret: string;
}

export type NamedZone =
  /** Fetched from `primaryPort` on 127.0.0.1, signed with `key`. */
  | { name: string; type: 'secondary'; primaryPort: number; key?: NamedKey }
  /** Served from `text` (a master file); NOTIFY sent to `notify` ports on 127.0.0.1, transfers allowed with `key`. */
  | { name: string; type: 'primary'; text: string; notify?: number[]; key?: NamedKey };

export interface Named {
  port: number;
  /** `dig +short` at this server, each line. */
  dig(name: string, type: string): Promise<string[]>;
  /** The SOA serial it serves for `zone`, or undefined when it serves none. */
  serial(zone: string): Promise<number | undefined>;
  output(): string;
  close(): Promise<void>;
}

const keyClause = (key: NamedKey) => `key "${key.name}" { algorithm hmac-sha256; secret "${key.secret}"; };`;

function zoneClause(zone: NamedZone): string {
  if (zone.type === 'secondary') {
    const key = zone.key ? ` key "${zone.key.name}"` : '';
    return `zone "${zone.name}" { type secondary; primaries port ${zone.primaryPort} { 127.0.0.1${key}; }; file "${zone.name}.secondary"; };`;
  }
  const notify = (zone.notify ?? []).map((port) => `127.0.0.1 port ${port};`).join(' ');
  const transfer = zone.key ? `key "${zone.key.name}";` : 'none;';
  return `zone "${zone.name}" { type primary; file "${zone.name}.primary"; notify explicit; also-notify { ${notify} }; allow-transfer { ${transfer} }; };`;
}

/** `port`: one chosen beforehand (freePort), when the other side must be told it before named starts. */
export async function startNamed(zones: NamedZone[], options: { port?: number } = {}): Promise<Named> {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'named-test-'));
  const port = options.port ?? (await freePort());
  const keys = new Map(zones.flatMap((z) => (z.key ? [[z.key.name, z.key] as const] : [])));
  for (const zone of zones) if (zone.type === 'primary') await writeFile(path.join(dir, `${zone.name}.primary`), zone.text);
  await writeFile(
    path.join(dir, 'named.conf'),
    [
      `options { directory "${dir}"; pid-file "${dir}/named.pid"; listen-on port ${port} { 127.0.0.1; }; listen-on-v6 { none; };`,
      `  recursion no; dnssec-validation no; allow-notify { 127.0.0.1; }; notify-source 127.0.0.1; transfer-source 127.0.0.1; };`,
      ...[...keys.values()].map(keyClause),
      ...zones.map(zoneClause),
    ].join('\n') + '\n',
  );
  let log = '';
  const child: ChildProcess = spawn('/usr/sbin/named', ['-g', '-c', path.join(dir, 'named.conf'), '-p', String(port)], { stdio: ['ignore', 'pipe', 'pipe'] });
  const keep = (chunk: Buffer) => (log = (log + chunk.toString()).slice(-100_000));
  child.stdout!.on('data', keep);
  child.stderr!.on('data', keep);
  const deadline = Date.now() + 15_000;
  while (!log.includes('running')) {
    if (child.exitCode !== null || Date.now() > deadline) {
      child.kill('SIGKILL');
      throw new Error(`named did not start:\n${log}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  const dig = async (name: string, type: string) => {
    const { stdout } = await run('dig', ['+short', '+norec', '+time=1', '+tries=1', '@127.0.0.1', '-p', String(port), name, type]);
    return stdout.split('\n').filter((line) => line !== '');
  };
  return {
    port,
    dig,
    serial: async (zone) => {
      const [soa] = await dig(zone, 'SOA').catch(() => []);
      const serial = soa?.split(' ')[2];
      return serial ? Number(serial) : undefined;
    },
    output: () => log,
    close: async () => {
      if (child.exitCode === null) {
        const exited = new Promise((resolve) => child.once('exit', resolve));
        child.kill('SIGTERM');
        await exited;
      }
      await rm(dir, { recursive: true, force: true });
    },
  };
}
