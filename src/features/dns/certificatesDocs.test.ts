import { spawn } from 'node:child_process';
import { X509Certificate } from 'node:crypto';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../../../test/support/testApp.js';
import { startPowerDns, type PowerDns } from '../../../test/support/powerdns.js';
import { startPebble, type Pebble } from '../../../test/support/pebble.js';
import { createKey } from '../../../test/support/actors.js';
import { dnsCustomer, insertActiveDomain, type Customer } from '../../../test/support/domains.js';

/**
 * docs/certificates.md's lego (httpreq) and certbot (manual hooks) commands, run as written: the
 * `sh` blocks are taken from the page, only the placeholders the page tells the reader to fill are
 * replaced (the API's URL, the organisation, the key, the domain, the test CA's settings), and the
 * result runs under /bin/sh against Debian's pebble, which asks the test's PowerDNS. Each must end
 * with a certificate for the domain and its wildcard. certificatesLive.test.ts covers the service's
 * side in depth; this one fails when the page drifts from what works.
 */
const DOC = path.resolve(import.meta.dirname, '../../../docs/certificates.md');
const DOMAIN = `certdocs-${Math.random().toString(36).slice(2, 8)}.test`;
const RUN_TIMEOUT_MS = 90_000;

let pdns: PowerDns;
let pebble: Pebble;
let app: TestApp;
let scratch: string;
let c: Customer;
let doc: string;
beforeAll(async () => {
  doc = await readFile(DOC, 'utf8');
  scratch = await mkdtemp(path.join(os.tmpdir(), 'certificates-docs-test-'));
  pdns = await startPowerDns();
  pebble = await startPebble({ dnsServer: `127.0.0.1:${pdns.dnsPort}` });
  app = await startTestApp({ env: { DNS_PROVIDER_URL: pdns.apiUrl, DNS_PROVIDER_TOKEN: pdns.apiKey } });
  c = await dnsCustomer(app, 'live');
  await insertActiveDomain(app, c, { name: DOMAIN });
}, 120_000);
afterAll(async () => {
  await app?.close();
  await pebble?.close();
  await pdns?.close();
  if (scratch) await rm(scratch, { recursive: true, force: true });
});

/** The `sh` code blocks of the page's section whose `## ` heading starts with `heading`. */
function shBlocks(heading: string): string[] {
  const section = doc.split(/^## /m).find((s) => s.startsWith(heading));
  if (!section) throw new Error(`docs/certificates.md has no section "## ${heading}"`);
  return [...section.matchAll(/^```sh\n([\s\S]*?)^```$/gm)].map((m) => m[1]!);
}

/** Replaces each placeholder, failing when the page no longer has it (the test would then run something else). */
function fill(script: string, replacements: [RegExp | string, string][]): string {
  return replacements.reduce((text, [placeholder, value]) => {
    const found = typeof placeholder === 'string' ? text.includes(placeholder) : placeholder.test(text);
    if (!found) throw new Error(`docs/certificates.md: ${String(placeholder)} is not in\n${text}`);
    return typeof placeholder === 'string' ? text.split(placeholder).join(value) : text.replace(placeholder, value);
  }, script);
}

/** The reader's domain, where the page names it in `-d` (the contact address stays as written). */
const domainArgs: [RegExp, string] = [/(-d '?(?:\*\.)?)example\.com/g, `$1${DOMAIN}`];
const apiBase: [string, string] = ['https://api.example.net/api/v1/orgs/org_XXXXXXXX', ''];

interface ShellRun { code: number | null; output: string }

/** The script under /bin/sh in `cwd`, with only PATH, HOME and `env`; killed past the time box. */
function sh(script: string, cwd: string, env: Record<string, string>): Promise<ShellRun> {
  const child = spawn('/bin/sh', ['-e', '-c', script], {
    cwd,
    env: { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: cwd, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const timer = setTimeout(() => child.kill('SIGKILL'), RUN_TIMEOUT_MS);
  return new Promise((resolve, reject) => {
    child.once('error', (err) => {
      clearTimeout(timer);
      reject(err);
    });
    child.once('close', (code) => {
      clearTimeout(timer);
      resolve({ code, output });
    });
  });
}

async function expectCertificate(run: ShellRun, pemFile: string) {
  if (run.code !== 0) throw new Error(`exited ${run.code}:\n${run.output}\npebble:\n${pebble.output().slice(-5_000)}`);
  const pem = await readFile(pemFile, 'utf8');
  const [leaf, issuer] = (pem.match(/-----BEGIN CERTIFICATE-----[\s\S]+?-----END CERTIFICATE-----/g) ?? []).map((block) => new X509Certificate(block));
  expect(leaf!.subjectAltName!.split(', ').sort()).toEqual([`DNS:*.${DOMAIN}`, `DNS:${DOMAIN}`]);
  expect(leaf!.issuer).toContain('Pebble Intermediate CA');
  expect(leaf!.verify(issuer!.publicKey)).toBe(true);
  // The clean-up half ran too: no challenge value is left at the name.
  const left = await pdns.resolver().resolveTxt(`_acme-challenge.${DOMAIN}`).catch((err: NodeJS.ErrnoException) => err.code);
  expect(left).toBe('ENOTFOUND');
}

const certificatesKey = async (name: string) =>
  (await createKey(app, c.session, { name, preset: 'certificates', mode: 'live', allowed_records: [`_acme-challenge.${DOMAIN}:TXT`, `_acme-challenge.*.${DOMAIN}:TXT`] })).key;

describe('docs/certificates.md, run as written against pebble', () => {
  it('lego with httpreq: the exports of the first block, then the test-CA command', { timeout: RUN_TIMEOUT_MS + 10_000 }, async () => {
    const [first, testCa] = shBlocks('lego, with httpreq');
    const exports = first!.split('\n').filter((line) => line.startsWith('export ')).join('\n');
    const script = fill(`${exports}\n${testCa!}`, [
      [apiBase[0], `${app.url}/api/v1/orgs/${c.org.id}`],
      ['"svc_live_…"', `'${await certificatesKey('lego from the docs')}'`],
      ['/path/to/the-ca-tls-root.pem', pebble.tlsCaFile],
      ['https://127.0.0.1:14000/dir', pebble.directoryUrl],
      ['127.0.0.1:5300', `127.0.0.1:${pdns.dnsPort}`],
      domainArgs,
    ]);
    const dir = path.join(scratch, 'lego');
    await mkdir(dir);
    // lego keeps its account and certificates in ./.lego (its --path default).
    await expectCertificate(await sh(script, dir, {}), path.join(dir, '.lego', 'certificates', `${DOMAIN}.crt`));
  });

  it('certbot with the manual hooks: the hook script, then certonly with the test CA the page names', { timeout: RUN_TIMEOUT_MS + 10_000 }, async () => {
    const [block] = shBlocks('certbot, with manual hooks');
    const dir = path.join(scratch, 'certbot');
    const etc = path.join(dir, 'letsencrypt');
    await mkdir(etc, { recursive: true });
    // Where the page keeps the key; certbot's own directories move with it (they are /etc and /var otherwise).
    await writeFile(path.join(etc, 'domain-service.key'), await certificatesKey('certbot from the docs'), { mode: 0o600 });
    const script = fill(block!, [
      [apiBase[0], `${app.url}/api/v1/orgs/${c.org.id}`],
      ['/etc/letsencrypt', etc],
      domainArgs,
      // "Against a test CA, add `--server <directory URL>` and point `REQUESTS_CA_BUNDLE` at its TLS root."
      [/^certbot certonly /m, `certbot certonly --server ${pebble.directoryUrl} --config-dir ${etc} --work-dir ${dir}/work --logs-dir ${dir}/logs `],
    ]);
    const run = await sh(script, dir, { REQUESTS_CA_BUNDLE: pebble.tlsCaFile });
    await expectCertificate(run, path.join(etc, 'live', DOMAIN, 'fullchain.pem'));
  });
});
