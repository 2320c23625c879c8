import { randomBytes } from 'node:crypto';
import { afterEach, describe, expect, it } from 'vitest';
import { startCodecServer } from '../../src/codecServer/start.js';
import { loadConfig } from '../../src/config.js';
import type { ListeningServer } from '../../src/http/listen.js';
import { createLogger } from '../../src/logger.js';
import { openJson, sealJson } from '../../src/db/sealedJson.js';
import { PayloadKeyring, parsePayloadKeys } from '../../src/temporal/payloadKeys.js';
import { freePort } from '../../scripts/lib/temporalDevServer.js';
import { runTs } from '../support/processes.js';

const UI = 'http://localhost:8233';
const OLD = `old:${randomBytes(32).toString('base64')}`;
const NEW = `new:${randomBytes(32).toString('base64')}`;
const servers: ListeningServer[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => s.close()));
});

async function codecServer(keys: string, env: Record<string, string> = {}): Promise<string> {
  const config = loadConfig({ NODE_ENV: 'test', LOG_LEVEL: 'silent', PAYLOAD_ENCRYPTION_KEYS: keys, CODEC_SERVER_PORT: '0', CODEC_SERVER_CORS_ORIGINS: UI, ...env });
  const server = await startCodecServer(config, createLogger(config));
  servers.push(server);
  return server.url;
}

const JSON_HEADERS = { 'content-type': 'application/json', 'x-namespace': 'default', origin: UI };
const plain = { metadata: { encoding: Buffer.from('json/plain').toString('base64') }, data: Buffer.from('{"authCode":"EPP-1"}').toString('base64') };
type Body = { payloads: { metadata: Record<string, string>; data: string }[] };

async function post(url: string, path: '/encode' | '/decode', body: unknown): Promise<Response> {
  return fetch(`${url}${path}`, { method: 'POST', headers: JSON_HEADERS, body: JSON.stringify(body) });
}

describe('the codec server', () => {
  it('decodes with an old key after rotation, and encodes with the new one', async () => {
    const before = await codecServer(OLD);
    const sealed = (await (await post(before, '/encode', { payloads: [plain] })).json()) as Body;
    expect(Buffer.from(sealed.payloads[0]!.metadata['encryption-key-id']!, 'base64').toString()).toBe('old');
    expect(Buffer.from(sealed.payloads[0]!.data, 'base64').toString('latin1')).not.toContain('EPP-1');

    const rotated = await codecServer(`${NEW},${OLD}`);
    const decoded = await post(rotated, '/decode', sealed);
    expect(decoded.status).toBe(200);
    expect(((await decoded.json()) as Body).payloads).toEqual([plain]);
    const resealed = (await (await post(rotated, '/encode', { payloads: [plain] })).json()) as Body;
    expect(Buffer.from(resealed.payloads[0]!.metadata['encryption-key-id']!, 'base64').toString()).toBe('new');

    // Once the old key is dropped, its payloads stay sealed: refused, never guessed.
    const dropped = await post(await codecServer(NEW), '/decode', sealed);
    expect(dropped.status).toBe(422);
    expect(await dropped.json()).toMatchObject({ code: 'PAYLOAD_NOT_DECODABLE' });
  });

  it('passes payloads that were never encrypted through unchanged', async () => {
    const res = await post(await codecServer(NEW), '/decode', { payloads: [plain] });
    expect(((await res.json()) as Body).payloads).toEqual([plain]);
  });

  it('answers the Web UI preflight for its origin only', async () => {
    const url = await codecServer(NEW);
    const preflight = (origin: string) =>
      fetch(`${url}/decode`, {
        method: 'OPTIONS',
        headers: { origin, 'access-control-request-method': 'POST', 'access-control-request-headers': 'content-type,x-namespace,authorization' },
      });
    const allowed = await preflight(UI);
    expect(allowed.status).toBe(204);
    expect(allowed.headers.get('access-control-allow-origin')).toBe(UI);
    expect(allowed.headers.get('access-control-allow-methods')).toContain('POST');
    expect(allowed.headers.get('access-control-allow-headers')?.toLowerCase().split(/,\s*/)).toEqual(
      expect.arrayContaining(['content-type', 'x-namespace', 'authorization']),
    );

    const other = await preflight('https://evil.example');
    expect(other.headers.get('access-control-allow-origin')).toBeNull();
    expect(other.headers.get('access-control-allow-headers')).toBeNull();
    const direct = await fetch(`${url}/decode`, { method: 'POST', headers: { ...JSON_HEADERS, origin: 'https://evil.example' }, body: '{"payloads":[]}' });
    expect(direct.status).toBe(403);
    expect(direct.headers.get('access-control-allow-origin')).toBeNull();
  });

  it('refuses a body that is not the protocol', async () => {
    const url = await codecServer(NEW);
    expect((await post(url, '/decode', { payloads: [{ data: 'not base64!' }] })).status).toBe(422);
    const text = await fetch(`${url}/decode`, { method: 'POST', headers: { 'content-type': 'text/plain' }, body: '{"payloads":[]}' });
    expect(text.status).toBe(400);
  });
});

describe('a codec server listening beyond loopback', () => {
  const TOKEN = randomBytes(32).toString('base64url');
  /** As docker-compose.yml runs it: on every interface of its container, published to the host. */
  const remote = async () => {
    const url = await codecServer(NEW, { CODEC_SERVER_HOST: '0.0.0.0', CODEC_SERVER_ALLOW_REMOTE: 'true', CODEC_SERVER_TOKEN: TOKEN });
    return url.replace('0.0.0.0', '127.0.0.1');
  };
  const sealedPayloads = async (url: string) =>
    (await (await fetch(`${url}/encode`, { method: 'POST', headers: { ...JSON_HEADERS, authorization: `Bearer ${TOKEN}` }, body: JSON.stringify({ payloads: [plain] }) })).json()) as Body;

  it('decodes nothing for a caller without the token, and everything for one with it', async () => {
    const url = await remote();
    const sealed = await sealedPayloads(url);
    const decode = (headers: Record<string, string>) => fetch(`${url}/decode`, { method: 'POST', headers: { ...JSON_HEADERS, ...headers }, body: JSON.stringify(sealed) });

    const anonymous = await decode({});
    expect(anonymous.status).toBe(401);
    expect(anonymous.headers.get('www-authenticate')).toBe('Bearer');
    expect(JSON.stringify(await anonymous.json())).not.toContain(plain.data);
    for (const authorization of ['Bearer wrong-token', `Basic ${TOKEN}`, TOKEN]) {
      const refused = await decode({ authorization });
      expect(refused.status).toBe(401);
      expect(await refused.json()).toMatchObject({ code: 'INVALID_TOKEN' });
    }
    expect((await fetch(`${url}/encode`, { method: 'POST', headers: JSON_HEADERS, body: JSON.stringify({ payloads: [plain] }) })).status).toBe(401);

    const allowed = await decode({ authorization: `Bearer ${TOKEN}` });
    expect(allowed.status).toBe(200);
    expect(((await allowed.json()) as Body).payloads).toEqual([plain]);
    // The health check stays open for the container's probe.
    expect((await fetch(`${url}/healthz`)).status).toBe(200);
  });

  it('lets the Web UI in a browser decode after signing in with the token (an HttpOnly, SameSite=Strict cookie)', async () => {
    const url = await remote();
    const sealed = await sealedPayloads(url);
    const form = await fetch(`${url}/session`);
    expect(form.status).toBe(200);
    expect(await form.text()).toContain('name="token"');

    const signIn = (token: string) =>
      fetch(`${url}/session`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded', origin: url },
        body: new URLSearchParams({ token }).toString(),
        redirect: 'manual',
      });
    const wrong = await signIn('not-the-token');
    expect(wrong.status).toBe(401);
    expect(wrong.headers.get('set-cookie')).toBeNull();
    const signedIn = await signIn(TOKEN);
    expect(signedIn.status).toBe(200);
    const cookie = signedIn.headers.get('set-cookie')!;
    expect(cookie).toMatch(/HttpOnly/i);
    expect(cookie).toMatch(/SameSite=Strict/i);
    expect(cookie).not.toContain(TOKEN);

    // What the UI's fetch sends with `includeCredentials`: its origin and the cookie.
    const decoded = await fetch(`${url}/decode`, { method: 'POST', headers: { ...JSON_HEADERS, cookie: cookie.split(';')[0]! }, body: JSON.stringify(sealed) });
    expect(decoded.status).toBe(200);
    expect(decoded.headers.get('access-control-allow-origin')).toBe(UI);
    expect(decoded.headers.get('access-control-allow-credentials')).toBe('true');
    expect(((await decoded.json()) as Body).payloads).toEqual([plain]);
    const forged = await fetch(`${url}/decode`, { method: 'POST', headers: { ...JSON_HEADERS, cookie: 'codec_session=forged' }, body: JSON.stringify(sealed) });
    expect(forged.status).toBe(401);
  });
});

describe('the codec-server role', () => {
  it('runs as its own process on loopback and stops on SIGTERM', async () => {
    const port = await freePort();
    const proc = runTs('src/main.ts', ['--role', 'codec-server'], { NODE_ENV: 'test', PAYLOAD_ENCRYPTION_KEYS: NEW, CODEC_SERVER_PORT: String(port) });
    await proc.waitForOutput(/"msg":"codec server listening"/);
    expect(proc.output()).toContain(`"url":"http://127.0.0.1:${port}"`);
    const res = await post(`http://127.0.0.1:${port}`, '/encode', { payloads: [plain] });
    expect(res.status).toBe(200);
    proc.child.kill('SIGTERM');
    expect(await proc.exited).toBe(0);
  });

  it('refuses to listen beyond loopback unless told to, naming the variable', async () => {
    const proc = runTs('src/main.ts', ['--role', 'codec-server'], { NODE_ENV: 'test', PAYLOAD_ENCRYPTION_KEYS: NEW, CODEC_SERVER_HOST: '0.0.0.0' });
    expect(await proc.exited).toBe(1);
    expect(proc.output()).toMatch(/Invalid configuration:\n {2}- CODEC_SERVER_HOST: must be a loopback address/);
  });

  it('refuses to listen beyond loopback without a token, naming the variable', async () => {
    const proc = runTs('src/main.ts', ['--role', 'codec-server'], {
      NODE_ENV: 'test',
      PAYLOAD_ENCRYPTION_KEYS: NEW,
      CODEC_SERVER_HOST: '0.0.0.0',
      CODEC_SERVER_ALLOW_REMOTE: 'true',
      CODEC_SERVER_PORT: String(await freePort()),
    });
    const listening = proc.waitForOutput(/"msg":"codec server listening"/, 15_000).then(
      () => 'listening',
      () => 'silent',
    );
    const outcome = await Promise.race([proc.exited, listening]);
    if (proc.child.exitCode === null) proc.child.kill('SIGTERM');
    expect(outcome).toBe(1);
    expect(proc.output()).toMatch(/- CODEC_SERVER_TOKEN: is required when the codec server listens beyond loopback/);
  });
});

describe('the stored workflow input', () => {
  it('opens with the old key after rotation, and only for the column it was sealed for', () => {
    const keys = (value: string) => new PayloadKeyring((parsePayloadKeys(value) as { keys: never[] }).keys);
    const sealed = sealJson(keys(OLD), 'operations.workflow_input', { authCode: 'EPP-1' });
    expect(JSON.stringify(sealed)).not.toContain('EPP-1');
    expect(openJson(keys(`${NEW},${OLD}`), 'operations.workflow_input', sealed)).toEqual({ authCode: 'EPP-1' });
    expect(() => openJson(keys(OLD), 'temporal-payload', sealed)).toThrow();
    expect(() => openJson(keys(NEW), 'operations.workflow_input', sealed)).toThrow(/no payload encryption key "old"/);
  });
});
