/**
 * The codec server's sign-in as the Temporal Web UI meets it, in Debian's Chromium: the UI's page
 * (another port of the same host) calls `/decode` the way the UI does with its codec setting
 * `includeCredentials` (`fetch(…, {credentials: 'include'})`), which sends the session cookie only
 * once the operator has signed in at `/session` with CODEC_SERVER_TOKEN.
 */
import http from 'node:http';
import { randomBytes } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import { launchChromium } from '../support/chromium.js';
import { startCodecServer } from '../../src/codecServer/start.js';
import { loadConfig } from '../../src/config.js';
import type { ListeningServer } from '../../src/http/listen.js';
import { createLogger } from '../../src/logger.js';

const TOKEN = randomBytes(32).toString('base64url');
const plain = { metadata: { encoding: Buffer.from('json/plain').toString('base64') }, data: Buffer.from('{"authCode":"EPP-1"}').toString('base64') };

let ui: http.Server;
let uiOrigin: string;
let codecUrl: string;
let codec: ListeningServer;
let browser: Browser;
let page: Page;

beforeAll(async () => {
  // Stands in for the Web UI: a page of its own origin that the codec server allows.
  ui = http.createServer((_req, res) => res.writeHead(200, { 'content-type': 'text/html' }).end('<!doctype html><title>ui</title>'));
  await new Promise<void>((resolve) => ui.listen(0, '127.0.0.1', resolve));
  uiOrigin = `http://localhost:${(ui.address() as AddressInfo).port}`;
  const keys = `k1:${randomBytes(32).toString('base64')}`;
  const config = loadConfig({ NODE_ENV: 'test', LOG_LEVEL: 'silent', PAYLOAD_ENCRYPTION_KEYS: keys, CODEC_SERVER_PORT: '0', CODEC_SERVER_CORS_ORIGINS: uiOrigin, CODEC_SERVER_TOKEN: TOKEN });
  codec = await startCodecServer(config, createLogger(config));
  codecUrl = codec.url.replace('127.0.0.1', 'localhost');
  browser = await launchChromium();
  page = await (await browser.newContext()).newPage();
  page.setDefaultTimeout(15_000);
});

afterAll(async () => {
  await browser?.close();
  await codec?.close();
  await new Promise((resolve) => ui?.close(resolve));
});

/** What the Web UI's page runs to decode one event's payloads. */
async function decodeFromUi(payloads: unknown): Promise<{ status: number; body: string }> {
  return page.evaluate(
    async ({ url, body }) => {
      const res = await fetch(`${url}/decode`, {
        method: 'POST',
        credentials: 'include',
        headers: { 'content-type': 'application/json', 'x-namespace': 'default' },
        body: JSON.stringify(body),
      });
      return { status: res.status, body: await res.text() };
    },
    { url: codecUrl, body: { payloads } },
  );
}

describe.sequential('the Web UI decoding through a codec server that asks for a token', () => {
  it('is refused before the operator signs in, and decodes after', async () => {
    const sealed = (await (
      await fetch(`${codec.url}/encode`, { method: 'POST', headers: { 'content-type': 'application/json', authorization: `Bearer ${TOKEN}` }, body: JSON.stringify({ payloads: [plain] }) })
    ).json()) as { payloads: unknown[] };

    await page.goto(uiOrigin);
    expect((await decodeFromUi(sealed.payloads)).status).toBe(401);

    await page.goto(`${codecUrl}/session`);
    await page.locator('input[name="token"]').fill(TOKEN);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await expect.poll(() => page.locator('body').innerText()).toContain('Signed in');

    await page.goto(uiOrigin);
    const decoded = await decodeFromUi(sealed.payloads);
    expect(decoded.status).toBe(200);
    expect(JSON.parse(decoded.body)).toEqual({ payloads: [plain] });
  });
});
