/**
 * lego (4.9), the ACME client, run as a user runs it: `lego … run` for some domains with a DNS
 * provider, against an ACME server (pebble), in a directory of its own. `.ci/run` installs Debian's,
 * and builds the same version with the acme-dns provider Debian leaves out (scripts/lib/lego.ts).
 */
import { spawn } from 'node:child_process';
import { X509Certificate } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import path from 'node:path';

export interface LegoRun {
  code: number | null;
  output: string;
  /** From the start of `lego run` to its exit. */
  elapsedMs: number;
}

export interface LegoProps {
  /** Debian's `lego` by default; its acme-dns provider needs a build of lego's own (scripts/lib/lego.ts). */
  binary?: string;
  directoryUrl: string;
  /** PEM file of the CA the ACME server's HTTPS certificate chains to. */
  tlsCaFile: string;
  /** `host:port` of the DNS server lego asks (CNAMEs of `_acme-challenge`; it checks no propagation). */
  resolver: string;
  /** `httpreq` or `acme-dns`, configured by `env` as lego documents it. */
  provider: string;
  env: Record<string, string>;
  domains: string[];
  /** lego's `--path`: its account, keys and certificates. */
  dir: string;
  /** Killed past this. */
  timeoutMs: number;
}

export function legoRun(props: LegoProps): Promise<LegoRun> {
  const args = [
    '--server', props.directoryUrl,
    '--accept-tos',
    '--email', 'certificates@example.net',
    '--path', props.dir,
    '--dns', props.provider,
    '--dns.resolvers', props.resolver,
    '--dns.disable-cp',
    ...props.domains.flatMap((domain) => ['--domains', domain]),
    'run',
  ];
  const started = performance.now();
  const child = spawn(props.binary ?? 'lego', args, {
    env: { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: props.dir, LEGO_CA_CERTIFICATES: props.tlsCaFile, ...props.env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const timer = setTimeout(() => child.kill('SIGKILL'), props.timeoutMs);
  return new Promise((resolve, reject) => {
    child.once('error', (err) => {
      clearTimeout(timer);
      reject(err);
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      resolve({ code, output, elapsedMs: performance.now() - started });
    });
  });
}

/** The certificate lego stored for its first domain, and the chain after it (lego writes `<domain>.crt` with the issuer appended). */
export async function legoCertificates(dir: string, domain: string): Promise<X509Certificate[]> {
  const pem = await readFile(path.join(dir, 'certificates', `${domain.replace('*', '_')}.crt`), 'utf8');
  return (pem.match(/-----BEGIN CERTIFICATE-----[\s\S]+?-----END CERTIFICATE-----/g) ?? []).map((block) => new X509Certificate(block));
}
