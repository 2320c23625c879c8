/**
 * What the command line does with its secrets, each command a process of its own: a token goes only
 * over https, or plain http to this machine, and its folder and files are the user's alone however
 * they were found.
 */
import { createServer, type Server } from 'node:http';
import { chmod, mkdir, stat, writeFile } from 'node:fs/promises';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../support/testApp.js';
import { cliUser, type CliUser } from '../support/cli.js';
import { createKey, sessionToken, uniqueEmail } from '../support/actors.js';

let app: TestApp;
let user: CliUser;
let listener: Server;
/** Requests that reached the listener on this machine's network address, with their Authorization header. */
const received: (string | undefined)[] = [];
/** `http://<this machine's address on its network>:<port>`: plain http to a host that is not loopback. */
let elsewhere: string;

beforeAll(async () => {
  app = await startTestApp();
  user = await cliUser();
  const address = Object.values(os.networkInterfaces())
    .flat()
    .find((nic) => nic && nic.family === 'IPv4' && !nic.internal)?.address;
  expect(address, 'a network address other than loopback, for the command line to refuse').toBeDefined();
  listener = createServer((req, res) => {
    received.push(req.headers.authorization);
    res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
  });
  await new Promise<void>((resolve) => listener.listen(0, address, resolve));
  elsewhere = `http://${address}:${(listener.address() as AddressInfo).port}`;
});
afterAll(async () => {
  await user?.remove();
  await new Promise((resolve) => listener?.close(resolve));
  await app?.close();
});

const KEY = 'svc_test_notarealkeybutshapedlikeone0000';

describe('the command line’s secrets', () => {
  it('refuses plain http to another machine before sending anything, naming where the address came from', async () => {
    const settingsDir = path.join(user.configDir, 'domain-service');
    await mkdir(settingsDir, { recursive: true });
    const refusals = [
      [await user.run(['whoami', '--api-url', elsewhere], { DOMAIN_SERVICE_API_KEY: KEY }), '--api-url'],
      [await user.run(['whoami'], { DOMAIN_SERVICE_API_KEY: KEY, DOMAIN_SERVICE_API_URL: `${elsewhere}/api` }), 'DOMAIN_SERVICE_API_URL'],
    ] as const;
    // An address a last login stored, as an earlier version of the command line would have.
    await writeFile(path.join(settingsDir, 'config.json'), JSON.stringify({ api_url: elsewhere }));
    const fromSettings = await user.run(['whoami'], { DOMAIN_SERVICE_API_KEY: KEY });
    for (const [result, from] of [...refusals, [fromSettings, `api_url in ${path.join(settingsDir, 'config.json')}, from the last login`]] as const) {
      expect(result.code, result.stderr).toBe(2);
      expect(result.stderr).toContain(`INSECURE_API_URL: ${elsewhere} (${from}) is plain http to another machine`);
      expect(result.stderr).toContain(`use https://${elsewhere.slice('http://'.length)}`);
    }
    expect(received).toEqual([]);

    // Plain http to this machine is the development API's, and is used.
    const session = await sessionToken(app, uniqueEmail('cli-local'));
    const key = await createKey(app, session, { name: 'cli', scopes: ['orgs:read'], mode: 'test' });
    const local = await user.run(['whoami', '--json', '--api-url', app.url], { DOMAIN_SERVICE_API_KEY: key.key });
    expect(local.code, local.stderr).toBe(0);
    expect(JSON.parse(local.stdout)).toMatchObject({ api_url: app.url, mode: 'test' });
  });

  it('makes its folder 0700 and its files 0600 when it writes them, even where the folder was there with wider modes', async () => {
    const dir = path.join(user.configDir, 'domain-service');
    await mkdir(dir, { recursive: true });
    await chmod(dir, 0o755);
    await writeFile(path.join(dir, 'config.json'), '{}\n');
    await chmod(path.join(dir, 'config.json'), 0o644);

    const session = await sessionToken(app, uniqueEmail('cli-modes'));
    const key = await createKey(app, session, { name: 'cli', scopes: ['orgs:read', 'orgs:write'], mode: 'live' });
    const created = await user.run(['orgs', 'create', 'Modest'], { DOMAIN_SERVICE_API_KEY: key.key, DOMAIN_SERVICE_API_URL: app.url });
    expect(created.code, created.stderr).toBe(0);

    expect((await stat(dir)).mode & 0o777).toBe(0o700);
    expect((await stat(path.join(dir, 'config.json'))).mode & 0o777).toBe(0o600);
  });
});
