/**
 * Debian's `pebble`, Let's Encrypt's ACME test server, on loopback ports of its own, for the
 * certificate tests: it validates DNS-01 challenges by asking the DNS server it is given (`-dnsserver`,
 * the test's PowerDNS) and issues real certificates from a CA of its own. `.ci/run` installs it.
 * Its HTTPS listener needs a certificate: one is made here with openssl, under a throwaway CA that
 * the ACME client is told to trust (lego: LEGO_CA_CERTIFICATES).
 */
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import https from 'node:https';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { freePort } from '../../scripts/lib/temporalDevServer.js';

const run = promisify(execFile);

export interface Pebble {
  /** The ACME directory URL (`--server` for lego). */
  directoryUrl: string;
  /** The CA that signed pebble's HTTPS certificate (PEM file), for the client to trust. */
  tlsCaFile: string;
  output(): string;
  close(): Promise<void>;
}

/** A CA and a certificate for 127.0.0.1 and localhost signed by it, in `dir`. */
async function tlsFiles(dir: string): Promise<{ ca: string; cert: string; key: string }> {
  const file = (name: string) => path.join(dir, name);
  const ec = ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes'];
  await run('openssl', ['req', '-x509', ...ec, '-keyout', file('ca.key'), '-out', file('ca.pem'), '-days', '2', '-subj', '/CN=pebble test TLS CA',
    '-addext', 'basicConstraints=critical,CA:TRUE', '-addext', 'keyUsage=critical,keyCertSign,cRLSign']);
  await run('openssl', ['req', ...ec, '-keyout', file('key.pem'), '-out', file('cert.csr'), '-subj', '/CN=localhost']);
  await writeFile(file('cert.ext'), 'subjectAltName=IP:127.0.0.1,DNS:localhost\nkeyUsage=critical,digitalSignature\nextendedKeyUsage=serverAuth\n');
  await run('openssl', ['x509', '-req', '-in', file('cert.csr'), '-CA', file('ca.pem'), '-CAkey', file('ca.key'), '-CAcreateserial', '-days', '2',
    '-extfile', file('cert.ext'), '-out', file('cert.pem')]);
  return { ca: file('ca.pem'), cert: file('cert.pem'), key: file('key.pem') };
}

/** Whether the directory answers over HTTPS with that CA. */
function directoryAnswers(url: string, ca: Buffer): Promise<boolean> {
  return new Promise((resolve) => {
    const req = https.get(url, { ca, timeout: 1_000 }, (res) => {
      res.resume();
      resolve(res.statusCode === 200);
    });
    req.on('error', () => resolve(false));
    req.on('timeout', () => req.destroy());
  });
}

/** Starts pebble, resolving challenges through `dnsServer` (`host:port`); answers once its directory does. */
export async function startPebble(props: { dnsServer: string }): Promise<Pebble> {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'pebble-test-'));
  const tls = await tlsFiles(dir);
  const [port, managementPort, httpPort, tlsPort] = [await freePort(), await freePort(), await freePort(), await freePort()];
  const config = path.join(dir, 'pebble-config.json');
  await writeFile(
    config,
    JSON.stringify({
      pebble: {
        listenAddress: `127.0.0.1:${port}`,
        managementListenAddress: `127.0.0.1:${managementPort}`,
        certificate: tls.cert,
        privateKey: tls.key,
        // Ports pebble would connect to for HTTP-01 and TLS-ALPN-01; only DNS-01 is used here.
        httpPort,
        tlsPort,
        ocspResponderURL: '',
        externalAccountBindingRequired: false,
      },
    }),
  );
  // No random wait before each validation (its default imitates a busy CA for up to 15 s).
  const child: ChildProcess = spawn('pebble', ['-config', config, '-dnsserver', props.dnsServer], {
    env: { PATH: process.env.PATH ?? '/usr/bin:/bin', PEBBLE_VA_NOSLEEP: '1' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let log = '';
  const keep = (chunk: Buffer) => (log = (log + chunk.toString()).slice(-200_000));
  child.stdout?.on('data', keep);
  child.stderr?.on('data', keep);
  const directoryUrl = `https://127.0.0.1:${port}/dir`;
  const close = async () => {
    if (child.exitCode === null) {
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGTERM');
      await exited;
    }
    await rm(dir, { recursive: true, force: true });
  };
  const ca = await readFile(tls.ca);
  const deadline = Date.now() + 15_000;
  while (!(await directoryAnswers(directoryUrl, ca))) {
    if (child.exitCode !== null || Date.now() > deadline) {
      await close();
      throw new Error(`pebble did not come up:\n${log}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return { directoryUrl, tlsCaFile: tls.ca, output: () => log, close };
}
