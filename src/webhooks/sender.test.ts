import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sendWebhook, type Resolver } from './sender.js';

let server: http.Server;
let port: number;
const seen: { path: string; host: string | undefined; body: string }[] = [];

beforeAll(async () => {
  server = http.createServer((req, res) => {
    let body = '';
    req.on('data', (chunk: Buffer) => (body += chunk.toString()));
    req.on('end', () => {
      seen.push({ path: req.url ?? '', host: req.headers.host, body });
      if (req.url === '/redirect') res.writeHead(302, { location: `http://127.0.0.1:${port}/elsewhere` }).end();
      else if (req.url === '/slow') setTimeout(() => res.writeHead(200).end(), 2_000);
      else res.writeHead(204).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  port = (server.address() as AddressInfo).port;
});
afterAll(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});

const calls: string[] = [];
const resolver: Resolver = (hostname) => {
  calls.push(hostname);
  return Promise.resolve(hostname === 'receiver.test' ? [{ address: '127.0.0.1', family: 4 }] : []);
};
const send = (url: string, allowPrivate = true, timeoutMs = 1_000) => sendWebhook({ url, body: '{"a":1}', headers: { 'webhook-id': 'evt_1' }, timeoutMs, allowPrivate, resolver });

describe('sendWebhook', () => {
  it('connects to the address it resolved and checked, once, keeping the name in Host', async () => {
    calls.length = 0;
    const result = await send(`http://receiver.test:${port}/in`);
    expect(result).toMatchObject({ statusCode: 204, error: null });
    expect(calls).toEqual(['receiver.test']);
    expect(seen.at(-1)).toEqual({ path: '/in', host: `receiver.test:${port}`, body: '{"a":1}' });
  });

  it('does not follow redirects', async () => {
    const before = seen.length;
    expect(await send(`http://127.0.0.1:${port}/redirect`)).toMatchObject({ statusCode: 302, error: 'Answered 302; redirects are not followed' });
    expect(seen.slice(before).map((s) => s.path)).toEqual(['/redirect']);
  });

  it('gives up after its timeout', async () => {
    const result = await send(`http://127.0.0.1:${port}/slow`, true, 300);
    expect(result).toMatchObject({ statusCode: null, error: 'Timed out after 300 ms' });
    expect(result.durationMs).toBeLessThan(1_000);
  });

  it('without private addresses allowed, refuses before connecting', async () => {
    const before = seen.length;
    expect(await send(`https://receiver.test:${port}/in`, false)).toMatchObject({ statusCode: null, error: 'Refused: receiver.test resolves to 127.0.0.1 is a loopback address' });
    expect(await send(`http://receiver.test:${port}/in`, false)).toMatchObject({ error: 'Refused: Must be an https URL' });
    expect(await send(`https://127.0.0.1:${port}/in`, false)).toMatchObject({ error: 'Refused: Must not point into a private network: 127.0.0.1 is a loopback address' });
    expect(await send('https://nowhere.test/in', false)).toMatchObject({ error: 'nowhere.test has no address' });
    expect(seen.length).toBe(before);
  });
});
