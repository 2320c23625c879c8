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
      // Far slower than any timeout below, so giving up well before it answers is giving up at the timeout.
      else if (req.url === '/slow') setTimeout(() => res.writeHead(200).end(), 20_000).unref();
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
  const answers: Record<string, string[]> = { 'receiver.test': ['127.0.0.1'], localhost: ['127.0.0.1', '::1'], 'internal.test': ['10.20.30.40'] };
  return Promise.resolve((answers[hostname] ?? []).map((address) => ({ address, family: address.includes(':') ? 6 : 4 })));
};
const send = (url: string, allowPrivate = true, timeoutMs = 1_000) =>
  sendWebhook({ url, body: '{"a":1}', headers: { 'webhook-id': 'evt_1' }, timeoutMs, policy: { allowPrivate, allowLoopback: false }, resolver });

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
    expect(result.durationMs).toBeLessThan(10_000);
  });

  it('without private addresses allowed, refuses before connecting', async () => {
    const before = seen.length;
    expect(await send(`https://receiver.test:${port}/in`, false)).toMatchObject({ statusCode: null, error: 'Refused: receiver.test resolves to a loopback address' });
    expect(await send(`http://receiver.test:${port}/in`, false)).toMatchObject({ error: 'Refused: Must be an https URL' });
    expect(await send(`https://127.0.0.1:${port}/in`, false)).toMatchObject({ error: 'Refused: Must not point into a private network: 127.0.0.1 is a loopback address' });
    expect(await send('https://nowhere.test/in', false)).toMatchObject({ error: 'nowhere.test has no address' });
    expect(seen.length).toBe(before);
  });

  it('names the kind of address an internal name resolves to, never the address', async () => {
    const refused = await send('https://internal.test/in', false);
    expect(refused).toMatchObject({ statusCode: null, error: 'Refused: internal.test resolves to a private address' });
    expect(refused.error).not.toContain('10.20.30.40');
    // A socket error names the host it was sent to, not the address that name resolved to.
    const closed = await new Promise<number>((resolve) => {
      const probe = http.createServer().listen(0, '127.0.0.1', () => {
        const free = (probe.address() as AddressInfo).port;
        probe.close(() => resolve(free));
      });
    });
    const unanswered = await send(`http://receiver.test:${closed}/in`);
    expect(unanswered.error).toContain('ECONNREFUSED');
    expect(unanswered.error).toContain(`receiver.test:${closed}`);
    expect(unanswered.error).not.toContain('127.0.0.1');
  });

  it('with the npm run dev allowance, sends over http to a loopback host that resolves to loopback only', async () => {
    const devTestMode = (url: string, answers: Resolver = resolver) =>
      sendWebhook({ url, body: '{}', headers: {}, timeoutMs: 1_000, policy: { allowPrivate: false, allowLoopback: true }, resolver: answers });
    const before = seen.length;
    expect(await devTestMode(`http://localhost:${port}/dev`)).toMatchObject({ statusCode: 204, error: null });
    expect(await devTestMode(`http://127.0.0.1:${port}/dev`)).toMatchObject({ statusCode: 204, error: null });
    expect(seen.slice(before).map((s) => s.path)).toEqual(['/dev', '/dev']);
    // A loopback name that resolves elsewhere, or another name that resolves to loopback: refused, nothing sent.
    const elsewhere: Resolver = () => Promise.resolve([{ address: '127.0.0.1', family: 4 }, { address: '10.0.0.7', family: 4 }]);
    expect(await devTestMode(`http://localhost:${port}/dev`, elsewhere)).toMatchObject({ error: 'Refused: localhost resolves to an address outside this machine' });
    expect(await devTestMode(`http://receiver.test:${port}/dev`)).toMatchObject({ error: 'Refused: Must be an https URL' });
    expect(await devTestMode(`https://receiver.test:${port}/dev`)).toMatchObject({ error: 'Refused: receiver.test resolves to a loopback address' });
    expect(seen.length).toBe(before + 2);
  });
});
