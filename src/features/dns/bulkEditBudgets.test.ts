/**
 * One tenant's bulk edits take a bounded share (docs/api-guide.md, DNS and Zone files): a free
 * organisation imports one zone file at a time on an api process (the next is 429 while the first is
 * still being sent), and its batches and imports change at most RECORD_CHANGES_PER_MINUTE_PER_ORG
 * records a minute in each mode; another organisation is answered meanwhile.
 */
import net from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../../../test/support/testApp.js';
import { bearer, jsonHeaders, uniqueEmail } from '../../../test/support/actors.js';
import { DNS_SCOPES, dnsCustomer, insertActiveDomain } from '../../../test/support/domains.js';
import { insertKey, insertOrg, insertUser } from '../../../test/support/factories.js';
import { readJson, type MessageErrorBody } from '../../../test/support/http.js';

/** Small, so that two batches spend it: the default is 20,000 (src/configSchema.ts). */
const CHANGES_PER_MINUTE = 150;

let app: TestApp;

beforeAll(async () => {
  app = await startTestApp({ env: { RECORD_CHANGES_PER_MINUTE_PER_ORG: String(CHANGES_PER_MINUTE) } });
});
afterAll(async () => app?.close());

async function freeCustomer(): Promise<{ key: string; base: string }> {
  const user = await insertUser(app.deps, uniqueEmail('bulk'));
  const org = await insertOrg(app.deps, { owner: user, plan: 'free' });
  const { key } = await insertKey(app.deps, { user, scopes: DNS_SCOPES, mode: 'test' });
  return { key, base: `/api/v1/orgs/${org.id}/domains/${await insertActiveDomain(app, { org, livemode: false })}` };
}

const zoneFile = (count: number, label: string) => `$TTL 300\n${Array.from({ length: count }, (_, i) => `${label}${i} TXT "v${i}"`).join('\n')}\n`;

const importFile = (who: { key: string; base: string }, text: string) =>
  app.fetch(`${who.base}/zone`, { method: 'POST', headers: { ...bearer(who.key), 'content-type': 'text/dns' }, body: text });

const batchOfCreates = (who: { key: string; base: string }, count: number, label: string) =>
  app.fetch(`${who.base}/records/batch`, {
    method: 'POST',
    headers: jsonHeaders(who.key),
    body: JSON.stringify({ operations: Array.from({ length: count }, (_, i) => ({ op: 'create', record: { type: 'TXT', name: `${label}${i}`, content: `v${i}` } })) }),
  });

/** An import whose body is announced and only partly sent: the api holds its slot while it waits for the rest. */
async function importLeftHanging(who: { key: string; base: string }): Promise<net.Socket> {
  const socket = net.connect(Number(new URL(app.url).port), '127.0.0.1');
  await new Promise<void>((resolve, reject) => socket.once('connect', resolve).once('error', reject));
  const body = Buffer.from(zoneFile(50, 'hang'));
  socket.write(`POST ${who.base}/zone HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${who.key}\r\nContent-Type: text/dns\r\nContent-Length: ${body.length}\r\n\r\n`);
  socket.write(body.subarray(0, 10));
  return socket;
}

describe('bulk edits of one organisation', () => {
  it('imports one zone file at a time for a free organisation: the next is 429 while the first is sent, another organisation imports meanwhile', async () => {
    const noisy = await freeCustomer();
    const other = await dnsCustomer(app, 'test');
    const otherDomain = { key: other.key, base: `/api/v1/orgs/${other.org.id}/domains/${await insertActiveDomain(app, other)}` };
    const hanging = await importLeftHanging(noisy);
    // Answered until the api has taken the first one's slot: the slot's refusal is what is waited for
    // (five a second at most, inside the key's write burst, so no other 429 can stand in for it).
    let second: { status: number; retryAfter: string | null; body: MessageErrorBody } | undefined;
    for (let tries = 0; tries < 25 && !second?.body.detail.includes('importing zone files'); tries += 1) {
      if (tries > 0) await new Promise((resolve) => setTimeout(resolve, 200));
      const res = await importFile(noisy, zoneFile(1, 'second'));
      second = { status: res.status, retryAfter: res.headers.get('retry-after'), body: await readJson<MessageErrorBody>(res) };
    }
    expect(second).toMatchObject({ status: 429, retryAfter: '5', body: { code: 'RATE_LIMITED' } });
    expect(second!.body.detail).toContain('importing zone files into this server one at a time');
    expect((await importFile(otherDomain, zoneFile(3, 'meanwhile'))).status).toBe(200);

    hanging.destroy();
    // Given back once the first request ends: the same organisation imports again.
    let third: Response | undefined;
    for (let tries = 0; tries < 25 && third?.status !== 200; tries += 1) {
      if (tries > 0) await new Promise((resolve) => setTimeout(resolve, 200));
      third = await importFile(noisy, zoneFile(2, 'third'));
    }
    expect(third!.status).toBe(200);
  });

  it('refuses a batch or an import past the records an organisation may change this minute, 429 with Retry-After, changing nothing', async () => {
    const noisy = await freeCustomer();
    expect((await batchOfCreates(noisy, 100, 'first')).status).toBe(200);
    const refused = await batchOfCreates(noisy, 100, 'second');
    expect(refused.status).toBe(429);
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(await readJson<MessageErrorBody>(refused)).toMatchObject({ code: 'RATE_LIMITED' });
    const imported = await importFile(noisy, zoneFile(100, 'third'));
    expect(imported.status).toBe(429);
    // A dry run changes nothing, so it spends nothing and is answered.
    expect((await app.fetch(`${noisy.base}/zone`, { method: 'POST', headers: { ...bearer(noisy.key), 'content-type': 'text/dns', 'dry-run': 'true' }, body: zoneFile(100, 'third') })).status).toBe(200);
    const records = await readJson<{ data: { name: string }[]; next_cursor: string | null }>(await app.fetch(`${noisy.base}/records?limit=100`, { headers: bearer(noisy.key) }));
    expect(records.data.filter((r) => r.name.startsWith('second') || r.name.startsWith('third'))).toEqual([]);

    const other = await freeCustomer();
    expect((await batchOfCreates(other, 100, 'other')).status).toBe(200);
  });
});
