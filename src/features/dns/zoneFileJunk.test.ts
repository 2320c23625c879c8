/**
 * One customer's junk zone files cannot hurt another (docs/api-guide.md, Zone files): each of six,
 * at the largest size an import takes, is refused within a second while another organisation's
 * requests are answered throughout in under 200 ms; and a body past the limit is refused as it is
 * read (a declared Content-Length before any of the body is read, a chunked body once it passes).
 */
import net from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../../../test/support/testApp.js';
import { bearer, uniqueEmail } from '../../../test/support/actors.js';
import { DNS_SCOPES, dnsCustomer, insertActiveDomain, type Customer } from '../../../test/support/domains.js';
import { insertKey, insertOrg, insertUser } from '../../../test/support/factories.js';
import { readJson, type FieldErrorBody } from '../../../test/support/http.js';
import { junkZoneFiles } from '../../../test/support/junkZoneFiles.js';
import { ZONE_FILE_LIMIT_BYTES } from './zone.routes.js';
import { JSON_BODY_LIMIT_BYTES } from '../../http/jsonBody.js';

let app: TestApp;
/** A free organisation's test key, as anyone can have one. */
let attacker: { key: string; base: string };
let bystander: Customer;
let bystanderRecords: string;
/** Sends the bodies past the limit: another customer, so the attacker's write limit is not spent on them. */
let sender: { key: string; base: string };

beforeAll(async () => {
  app = await startTestApp();
  const user = await insertUser(app.deps, uniqueEmail('junk'));
  const org = await insertOrg(app.deps, { owner: user, plan: 'free' });
  const { key } = await insertKey(app.deps, { user, scopes: DNS_SCOPES, mode: 'test' });
  attacker = { key, base: `/api/v1/orgs/${org.id}/domains/${await insertActiveDomain(app, { org, livemode: false })}` };
  bystander = await dnsCustomer(app, 'test');
  bystanderRecords = `/api/v1/orgs/${bystander.org.id}/domains/${await insertActiveDomain(app, bystander)}/records`;
  const other = await dnsCustomer(app, 'test');
  sender = { key: other.key, base: `/api/v1/orgs/${other.org.id}/domains/${await insertActiveDomain(app, other)}` };
  // Its first requests warm its caches (key, membership, plan) up: what is measured is the junk's effect.
  for (const path of ['/api/v1/me', bystanderRecords, '/api/v1/me', bystanderRecords]) await (await app.fetch(path, { headers: bearer(bystander.key) })).arrayBuffer();
});
afterAll(async () => {
  await app?.close();
});

/** The bystander's requests, one after the other while `more(how many so far)`: how long each took. */
async function bystanderLatencies(more: (count: number) => boolean): Promise<number[]> {
  const latencies: number[] = [];
  for (let i = 0; more(latencies.length); i += 1) {
    const started = performance.now();
    const res = await app.fetch(i % 2 === 0 ? '/api/v1/me' : bystanderRecords, { headers: bearer(bystander.key) });
    await res.arrayBuffer();
    expect(res.status).toBe(200);
    latencies.push(performance.now() - started);
  }
  return latencies;
}

/** The request head for an import, the attacker's unless another caller is given, with the body's framing. */
const importHead = (framing: string, by = attacker) =>
  `POST ${by.base}/zone HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${by.key}\r\nContent-Type: text/dns\r\n${framing}\r\n\r\n`;

/**
 * An import sent on a socket of its own, its answer read to the end (the request asks the server to
 * close): the client's side costs this process next to nothing, so what the bystander waits for is the api.
 */
function rawImport(body: Buffer): Promise<{ status: number; json: FieldErrorBody }> {
  return new Promise((resolve, reject) => {
    const socket = net.connect(Number(new URL(app.url).port), '127.0.0.1');
    const chunks: Buffer[] = [];
    socket.setTimeout(10_000, () => socket.destroy(new Error('no answer within 10 s')));
    socket.on('data', (chunk: Buffer) => chunks.push(chunk));
    socket.on('error', reject);
    socket.on('close', () => {
      const answer = Buffer.concat(chunks).toString('utf8');
      resolve({ status: Number(/^HTTP\/1\.1 (\d{3})/.exec(answer)?.[1]), json: JSON.parse(answer.slice(answer.indexOf('\r\n\r\n') + 4)) as FieldErrorBody });
    });
    socket.write(importHead(`Content-Length: ${body.length}\r\nConnection: close`));
    socket.write(body);
  });
}

describe('junk zone files', () => {
  it('refuses each of six junk files of the largest size in under a second, holding little, another organisation answered in under 200 ms throughout', { timeout: 60_000 }, async () => {
    const files = Object.entries(junkZoneFiles(ZONE_FILE_LIMIT_BYTES)).map(([shape, text]) => [shape, Buffer.from(text, 'latin1')] as const);
    // One of the same size first (a parenthesis never closed, then blanks), so the first junk file
    // measured is not also the first large body this process reads.
    expect((await rawImport(Buffer.from(`(${' '.repeat(ZONE_FILE_LIMIT_BYTES - 1)}`))).status).toBe(422);
    // 200 ms, as a bystander must be answered; on a machine so loaded that the bystander alone is
    // slower than that, no slower than half as much again as it is alone (the bench's measure).
    const quiet = await bystanderLatencies((count) => count < 20);
    const bound = Math.max(200, 1.5 * Math.max(...quiet));
    const refusals: { shape: string; status: number; code: string; problems: number; ms: number }[] = [];
    let importing = true;
    const rssBefore = process.resourceUsage().maxRSS;
    const imports = (async () => {
      for (const [shape, body] of files) {
        const started = performance.now();
        const { status, json } = await rawImport(body);
        refusals.push({ shape, status, code: json.code, problems: json.detail.length, ms: performance.now() - started });
      }
    })().finally(() => (importing = false));
    const latencies = await bystanderLatencies((count) => importing || count < 2);
    await imports;
    // The process's high-water mark (KB): the six held next to nothing beyond their bodies (8.4 M problems were 800 MB).
    const rssGrowth = process.resourceUsage().maxRSS - rssBefore;
    for (const refusal of refusals) {
      expect(refusal, refusal.shape).toMatchObject({ status: 422, code: 'ZONE_FILE_INVALID' });
      expect(refusal.problems, refusal.shape).toBeLessThanOrEqual(50);
      expect(refusal.ms, refusal.shape).toBeLessThan(1_000);
    }
    expect(refusals).toHaveLength(6);
    expect(rssGrowth).toBeLessThan(100 * 1024);
    const shown = (ms: number[]) => ms.map((l) => l.toFixed(0)).join(' ');
    expect(Math.max(...latencies), `bystander latencies (ms): ${shown(latencies)}; alone: ${shown(quiet)}`).toBeLessThan(bound);
    // Nothing was imported.
    const records = await app.fetch(`${attacker.base}/records`, { headers: bearer(attacker.key) });
    expect((await readJson<{ data: unknown[] }>(records)).data).toEqual([]);
  });
});

/** Past-the-limit bodies of both kinds: a zone file (text/dns) and a JSON batch. */
const LIMITED_BODIES = [
  { kind: 'zone file', head: (framing: string) => importHead(framing, sender), limit: ZONE_FILE_LIMIT_BYTES },
  {
    kind: 'JSON batch',
    head: (framing: string) =>
      `POST ${sender.base}/records/batch HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${sender.key}\r\nContent-Type: application/json\r\n${framing}\r\n\r\n`,
    limit: JSON_BODY_LIMIT_BYTES,
  },
];

describe('a body past the limit', () => {
  it.each(LIMITED_BODIES)('($kind) is refused on its declared Content-Length, before any of the body is sent', async ({ head, limit }) => {
    const answer = await new Promise<string>((resolve, reject) => {
      const socket = net.connect(Number(new URL(app.url).port), '127.0.0.1');
      let text = '';
      socket.setTimeout(10_000, () => socket.destroy(new Error('no answer within 10 s: the server waited for the body')));
      socket.on('data', (chunk: Buffer) => (text += chunk.toString('utf8')));
      socket.on('close', () => resolve(text));
      socket.on('error', reject);
      socket.write(head(`Content-Length: ${12 * limit}`));
    });
    expect(answer).toMatch(/^HTTP\/1\.1 413 /);
    expect(answer).toContain('"code":"PAYLOAD_TOO_LARGE"');
  });

  it.each(LIMITED_BODIES)('($kind) is cut off once chunked past the limit: answered 413, the connection closed, the rest never read', { timeout: 30_000 }, async ({ head, limit }) => {
    const chunk = `${(64 * 1024).toString(16)}\r\n${'a'.repeat(64 * 1024)}\r\n`;
    const offered = 8 * ZONE_FILE_LIMIT_BYTES;
    const { answer, sent } = await new Promise<{ answer: string; sent: number }>((resolve) => {
      const socket = net.connect(Number(new URL(app.url).port), '127.0.0.1');
      let text = '';
      let sent = 0;
      let closed = false;
      socket.on('data', (data: Buffer) => (text += data.toString('utf8')));
      socket.on('error', () => {});
      socket.on('close', () => {
        closed = true;
        resolve({ answer: text, sent });
      });
      socket.write(head('Transfer-Encoding: chunked'));
      // A server reading on after its answer would take all of it (and keep the connection).
      const send = () => {
        while (!closed && sent < offered) {
          sent += 64 * 1024;
          if (!socket.write(chunk)) {
            socket.once('drain', send);
            return;
          }
        }
        if (!closed) socket.end('0\r\n\r\n');
      };
      send();
    });
    expect(answer).toMatch(/^HTTP\/1\.1 413 /);
    expect(answer).toContain('"code":"PAYLOAD_TOO_LARGE"');
    // The limit, and what the kernel's buffers held besides: far from all that was offered.
    expect(sent).toBeLessThan(limit + offered / 2);
  });
});
