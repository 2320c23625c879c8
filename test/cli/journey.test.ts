/**
 * The command line as a new user runs it, each command a process of its own against the real api,
 * worker, Temporal, PostgreSQL and Redis, behind a proxy that gives this user their own address: a
 * device sign-in completed by a second process acting as the person (Chromium), an organisation, a
 * registration waited on, records applied from a file, and events forwarded to a local receiver.
 */
import { readFile, stat, writeFile } from 'node:fs/promises';
import * as oidc from 'openid-client';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../support/testApp.js';
import { startClientProxy, type ClientProxy } from '../support/clientProxy.js';
import { cliUser, type CliUser } from '../support/cli.js';
import { runTs } from '../support/processes.js';
import { simulatedClientAddress } from '../support/http.js';
import { startWebhookReceiver, type WebhookReceiver } from '../support/webhookReceiver.js';
import { uniqueEmail } from '../support/actors.js';
import { randomBase62 } from '../../src/ids.js';
import { verifyWebhook } from '../../client/src/index.js';

const address = simulatedClientAddress();
const email = uniqueEmail('cli');
const domain = `cli-${randomBase62(8).toLowerCase()}.com`;

let app: TestApp;
let proxy: ClientProxy;
let user: CliUser;
let receiver: WebhookReceiver;

beforeAll(async () => {
  app = await startTestApp({ worker: true });
  proxy = await startClientProxy(app.url, address);
  user = await cliUser();
  receiver = await startWebhookReceiver();
});
afterAll(async () => {
  await receiver?.close();
  await user?.remove();
  await proxy?.close();
  await app?.close();
});

/** `domain-service --test …`, expecting exit 0; answers what it printed. */
async function ok(...args: string[]) {
  const result = await user.run(['--test', ...args]);
  expect(result, `domain-service --test ${args.join(' ')}`).toMatchObject({ code: 0 });
  return result;
}

describe.sequential('the command line, from sign-in to forwarded webhooks', () => {
  it('signs in through the device flow, the code entered by the person in their browser, and keeps the tokens to itself', async () => {
    const login = user.start(['login', '--api-url', proxy.url]);
    const [, url, code] = await login.waitFor(/open (\S+)\s+and enter the code ([A-Z]{4}-[A-Z]{4})/);
    expect(url).toBe(`${app.url}/dev/oidc/device`);
    const person = runTs('test/support/devicePerson.ts', [url!, code!, email, 'Ada Lovelace', address], {});
    expect(await person.exited, person.output()).toBe(0);
    const done = await login.done;
    expect(done, done.stderr).toMatchObject({ code: 0, stdout: `Signed in to ${proxy.url} as ${email}.\nNext: create an organisation with \`domain-service orgs create NAME\`.\n` });

    const dir = path.join(user.configDir, 'domain-service');
    expect((await stat(dir)).mode & 0o777).toBe(0o700);
    expect((await stat(path.join(dir, 'credentials.json'))).mode & 0o777).toBe(0o600);
    // Later commands find the API and the sign-in by themselves.
    const whoami = await user.run(['whoami', '--json']);
    expect(JSON.parse(whoami.stdout)).toMatchObject({ email, name: 'Ada Lovelace', api_url: proxy.url, mode: 'live', auth: { type: 'session' } });
  });

  it('creates an organisation, funds its test balance and adds a contact, which become the defaults', async () => {
    await ok('orgs', 'create', 'Analytical Engines');
    expect((await ok('billing', 'top-up', '10000')).stdout).toBe('Added $100.00 (test mode).\n');
    await ok('contacts', 'create', '--first-name', 'Ada', '--last-name', 'Lovelace', '--email', email, '--phone', '+442071838750', '--address1', '12 St James Square', '--city', 'London', '--postal-code', 'SW1Y 4JH', '--country', 'GB');
  });

  it('registers a domain with --wait: in a pipe only the result is printed, and the exit code says how it ended', async () => {
    const registered = await ok('domains', 'register', domain, '--wait');
    expect(registered.stdout).toMatch(new RegExp(`^op_\\w+  domain\\.register  ${domain}  succeeded\\n$`));
    expect(registered.stderr).toBe('');
    expect(JSON.parse((await ok('domains', 'show', domain, '--json')).stdout)).toMatchObject({ name: domain, status: 'active', livemode: false });

    // `-fail`: the synthetic registrar refuses it; the funds are released and the exit code is 10.
    const failed = await user.run(['--test', 'domains', 'register', `cli-${randomBase62(6).toLowerCase()}-fail.com`, '--wait', '--json']);
    expect(failed.code).toBe(10);
    expect(JSON.parse(failed.stdout)).toMatchObject({ status: 'failed', error: { code: 'REGISTRAR_REJECTED' } });
    const missing = await user.run(['--test', 'domains', 'show', `nothing-${domain}`]);
    expect(missing).toMatchObject({ code: 5, stdout: '' });
    expect(missing.stderr).toMatch(/^error NOT_FOUND: .+ \(request req_\w+\)\n$/);
    const missingJson = await user.run(['--test', 'domains', 'show', `nothing-${domain}`, '--json']);
    expect(JSON.parse(missingJson.stderr)).toMatchObject({ error: { code: 'NOT_FOUND', status: 404, request_id: expect.stringMatching(/^req_/) } });
    expect(await user.run(['domains', 'register'])).toMatchObject({ code: 2, stderr: "error USAGE: missing required argument 'domain'\n" });
  });

  it('applies records from a YAML file: the difference first, applied only when confirmed, and the same file twice changes nothing', async () => {
    const file = path.join(user.env.HOME!, 'records.yaml');
    await writeFile(
      file,
      [
        'records:',
        '  - { name: www, type: A, content: 192.0.2.10, ttl: 300 }',
        '  - { name: "@", type: MX, priority: 10, content: mail.example.net }',
        '  - { name: "@", type: TXT, content: "v=spf1 include:_spf.example.net -all" }',
        '  - { name: _sip._tcp, type: SRV, priority: 10, content: 5 5060 sip.example.net }',
        '',
      ].join('\n'),
    );
    // No terminal to confirm at and no --yes: the plan is shown, nothing changes, exit 8.
    const unconfirmed = await user.run(['--test', 'records', 'apply', domain, file]);
    expect(unconfirmed.code).toBe(8);
    expect(unconfirmed.stderr).toContain('+ www 300 A 192.0.2.10');
    expect(unconfirmed.stderr).toContain('4 to create, 0 to change, 0 to delete');
    expect(JSON.parse((await ok('records', 'list', domain, '--json')).stdout)).toEqual([]);

    const applied = await ok('records', 'apply', domain, file, '--yes');
    expect(applied.stdout).toContain(`${domain}: applied, 4 to create, 0 to change, 0 to delete.`);
    const records = JSON.parse((await ok('records', 'list', domain, '--json')).stdout) as { name: string; type: string; content: string; priority: number | null }[];
    expect(records.map((r) => `${r.name} ${r.type} ${r.priority ?? ''} ${r.content}`).sort()).toEqual(
      ['@ MX 10 mail.example.net', '@ TXT  v=spf1 include:_spf.example.net -all', '_sip._tcp SRV 10 5 5060 sip.example.net', 'www A  192.0.2.10'].sort(),
    );
    expect((await ok('records', 'apply', domain, file)).stdout).toBe(`${domain}: Nothing to change.\n`);

    // An error names the entry as the person wrote it.
    await writeFile(file, 'records:\n  - { name: www, type: A, content: 192.0.2.300 }\n');
    const invalid = await user.run(['--test', 'records', 'apply', domain, file, '--yes']);
    expect(invalid.code).toBe(6);
    expect(invalid.stderr).toMatch(/^error ZONE_FILE_INVALID: records\[0\] \(www A\): /);
    // Seven runs of the CLI, each a Node process starting: over 30 s on a busy two-core machine.
  }, 90_000);

  it('forwards the organisation’s events to a local receiver, with the headers a webhook has, verifiable with the printed secret', async () => {
    const secret = (await ok('webhooks', 'listen', '--print-secret')).stdout.trim();
    expect(secret).toMatch(/^whsec_/);
    const listen = user.start(['--test', 'webhooks', 'listen', '--forward-to', receiver.url]);
    await listen.waitFor(/Ready\. Forwarding test-mode events/);
    expect((await listen.waitFor(/Webhook signing secret: (\S+)/))[1]).toBe(secret);

    await ok('records', 'add', domain, 'TXT', 'hello', 'from', 'the', 'command', 'line');
    const hook = await receiver.waitFor((h) => h.body.includes('"name":"hello"'));
    expect(hook.path).toBe(new URL(receiver.url).pathname);
    const event = await verifyWebhook(hook.body, hook.headers, secret);
    expect(event).toMatchObject({ type: 'dns_record.created', livemode: false, data: { object: { name: 'hello', content: 'from the command line' } } });
    const [line] = await listen.waitFor(new RegExp(`dns_record\\.created\\s+${event.id}  → 200 OK`));
    expect(line).toBeTruthy();

    listen.signal('SIGINT');
    expect((await listen.done).code).toBe(0);
  });

  // Seven command-line processes, each a second or more on a machine busy with the other test files.
  it('creates a key whose secret is printed once, alone on stdout; lists events and keys; deletes the key', { timeout: 60_000 }, async () => {
    const created = await ok('keys', 'create', 'deploy from CI', '--preset', 'ci');
    expect(created.stdout).toMatch(/^svc_test_[0-9A-Za-z]{38}\n$/);
    expect(created.stderr).toContain('Its secret is shown this once');
    const secret = created.stdout.trim();
    const keys = JSON.parse((await ok('keys', 'list', '--json')).stdout) as { id: string; name: string; prefix: string; key?: string }[];
    const listed = keys.find((k) => k.name === 'deploy from CI')!;
    expect(secret.startsWith(listed.prefix)).toBe(true);
    expect(listed.key).toBeUndefined();
    // The key acts on its own, within its scopes: the ci preset reads no events (403, exit 4).
    expect((await user.run(['events', 'list', '--type', 'dns_record.created', '--json'], { DOMAIN_SERVICE_API_KEY: secret })).code).toBe(4);
    // `records apply` changed four records in one request: one dns_zone.changed; `records add` one record.
    const events = JSON.parse((await ok('events', 'list', '--json')).stdout) as { type: string; data: { object: { domain?: string } } }[];
    expect(events.filter((e) => e.type === 'dns_zone.changed').map((e) => e.data.object.domain)).toEqual([domain]);
    expect(events.filter((e) => e.type === 'dns_record.created').length).toBeGreaterThanOrEqual(1);
    await ok('keys', 'rm', listed.id);
    const refused = await user.run(['whoami'], { DOMAIN_SERVICE_API_KEY: secret });
    expect(refused.code).toBe(3);
  });

  it('creates a Certificates key: the preset with the records it may write, and refuses the preset without them', async () => {
    const created = JSON.parse((await ok('keys', 'create', 'certbot', '--preset', 'certificates', '--allowed-records', `_acme-challenge.${domain}:TXT`, '--json')).stdout) as {
      scopes: string[];
      allowed_records: string[];
    };
    expect(created.allowed_records).toEqual([`_acme-challenge.${domain}:TXT`]);
    expect(created.scopes).toEqual(expect.arrayContaining(['dns:write']));
    const unrestricted = await user.run(['keys', 'create', 'certbot', '--preset', 'certificates']);
    expect(unrestricted.code).not.toBe(0);
    expect(unrestricted.stderr).toContain('allowed_records');
  });

  it('signs out: the refresh token is revoked and the next command asks for a sign-in (exit 3)', async () => {
    const credentials = path.join(user.configDir, 'domain-service', 'credentials.json');
    const { logins } = JSON.parse(await readFile(credentials, 'utf8')) as { logins: Record<string, { issuer: string; client_id: string; refresh_token: string }> };
    const login = logins[proxy.url]!;
    expect((await user.run(['logout'])).stdout).toBe(`Signed out of ${proxy.url}.\n`);
    const provider = await oidc.discovery(new URL(login.issuer), login.client_id, undefined, oidc.None(), { execute: [oidc.allowInsecureRequests] });
    await expect(oidc.refreshTokenGrant(provider, login.refresh_token)).rejects.toMatchObject({ error: 'invalid_grant' });
    await expect(stat(credentials)).rejects.toMatchObject({ code: 'ENOENT' });
    const after = await user.run(['whoami']);
    expect(after).toMatchObject({ code: 3, stdout: '' });
    expect(after.stderr).toContain('NOT_SIGNED_IN');
  });
});
