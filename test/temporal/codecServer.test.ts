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

async function codecServer(keys: string): Promise<string> {
  const config = loadConfig({ NODE_ENV: 'test', LOG_LEVEL: 'silent', PAYLOAD_ENCRYPTION_KEYS: keys, CODEC_SERVER_PORT: '0', CODEC_SERVER_CORS_ORIGINS: UI });
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
