import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../../../test/support/testApp.js';
import { bearer, createKey, jsonHeaders, sessionToken, uniqueEmail } from '../../../test/support/actors.js';
import { readJson, type FieldErrorBody, type MessageErrorBody } from '../../../test/support/http.js';
import { FakeDnsimple } from '../../../test/support/fakeDnsimple.js';

interface Slot {
  name: string;
  available?: boolean;
  premium?: boolean;
  price?: { amount: number; currency: string } | null;
  error?: { code: string; detail: string };
}

let app: TestApp;
let testKey: string;
let session: string;

beforeAll(async () => {
  app = await startTestApp();
  session = await sessionToken(app, uniqueEmail('avail'));
  testKey = (await createKey(app, session, { name: 'tester', scopes: ['domains:read'], mode: 'test' })).key;
});
afterAll(async () => app?.close());

const check = (name: string, token = testKey) =>
  app.fetch(`/api/v1/domains/availability?name=${encodeURIComponent(name)}`, { headers: bearer(token) });
const bulk = (names: unknown, token = testKey) =>
  app.fetch('/api/v1/domains/availability/bulk', { method: 'POST', headers: jsonHeaders(token), body: JSON.stringify({ names }) });

describe('GET /api/v1/domains/availability (test mode)', () => {
  it('answers an available name with the table price', async () => {
    const res = await check('My-Startup.com');
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({
      name: 'my-startup.com',
      unicode_name: 'my-startup.com',
      available: true,
      premium: false,
      price: { amount: 1299, currency: 'USD' },
    });
  });

  it('follows the documented test names: -taken and -premium', async () => {
    expect(await (await check('example-taken.com')).json()).toMatchObject({ available: false, price: null });
    expect(await (await check('shop-premium.io')).json()).toMatchObject({
      available: true,
      premium: true,
      price: { amount: 39990, currency: 'USD' },
    });
  });

  it('accepts IDN names and answers in punycode with the Unicode form alongside', async () => {
    expect(await (await check('bücher.de')).json()).toMatchObject({ name: 'xn--bcher-kva.de', unicode_name: 'bücher.de', available: true });
  });

  it('answers invalid names and unsold TLDs with 422 located at query.name', async () => {
    const bad = await readJson<FieldErrorBody>(await check('-bad-.com'));
    expect(bad.detail).toEqual([{ loc: ['query', 'name'], msg: expect.stringMatching(/inner hyphens/), type: 'domain_name_invalid' }]);
    const tld = await readJson<FieldErrorBody>(await check('example.museum'));
    expect(tld.detail).toEqual([{ loc: ['query', 'name'], msg: expect.stringMatching(/\.museum is not supported/), type: 'tld_unsupported' }]);
    expect((await app.fetch('/api/v1/domains/availability', { headers: bearer(testKey) })).status).toBe(422);
  });

  it('needs domains:read', async () => {
    const noScope = await createKey(app, session, { name: 'dns only', scopes: ['dns:read'], mode: 'test' });
    const res = await check('example.com', noScope.key);
    expect(res.status).toBe(403);
    expect((await readJson<MessageErrorBody>(res)).detail).toContain('domains:read');
  });
});

describe('POST /api/v1/domains/availability/bulk (test mode)', () => {
  it('answers every name in input order, duplicates included, errors in their slots', async () => {
    const names = ['alpha.com', 'beta-taken.net', 'not a name', 'ALPHA.com', 'gamma.museum', 'delta-premium.dev'];
    const res = await bulk(names);
    expect(res.status).toBe(200);
    const { results } = await readJson<{ results: Slot[] }>(res);
    expect(results.map((r) => r.name)).toEqual(['alpha.com', 'beta-taken.net', 'not a name', 'alpha.com', 'gamma.museum', 'delta-premium.dev']);
    expect(results[0]).toMatchObject({ available: true, price: { amount: 1299 } });
    expect(results[1]).toMatchObject({ available: false });
    expect(results[2]!.error).toEqual({ code: 'INVALID_DOMAIN_NAME', detail: 'Domain name contains white space' });
    expect(results[3]).toEqual(results[0]);
    expect(results[4]!.error!.code).toBe('INVALID_DOMAIN_NAME');
    expect(results[5]).toMatchObject({ premium: true, price: { amount: 15990 } });
  });

  it('takes 1 to 500 names', async () => {
    // The bulk pool allows 2 requests a second per key: a key per request keeps this about validation.
    const freshKey = async () => (await createKey(app, session, { name: 'bulk', scopes: ['domains:read'], mode: 'test' })).key;
    const many = Array.from({ length: 500 }, (_, i) => `name-${i}.com`);
    const { results } = await readJson<{ results: Slot[] }>(await bulk(many, await freshKey()));
    expect(results).toHaveLength(500);
    expect(results[499]).toMatchObject({ name: 'name-499.com', available: true });
    const tooMany = await readJson<FieldErrorBody>(await bulk([...many, 'one-more.com'], await freshKey()));
    expect(tooMany.detail.map((e) => e.loc)).toEqual([['body', 'names']]);
    expect((await bulk([], await freshKey())).status).toBe(422);
  });
});

describe('live mode', () => {
  it('without a configured registrar answers 503 UPSTREAM_UNAVAILABLE', async () => {
    const res = await check('example.com', session);
    expect(res.status).toBe(503);
    expect((await readJson<MessageErrorBody>(res)).code).toBe('UPSTREAM_UNAVAILABLE');
  });

  it('asks DNSimple, and puts a failing upstream in the slot of a bulk answer', async () => {
    const dnsimple = await FakeDnsimple.start();
    const live = await startTestApp({
      env: { REGISTRAR_URL: dnsimple.url, REGISTRAR_ACCOUNT: dnsimple.accountId, REGISTRAR_TOKEN: dnsimple.token },
    });
    try {
      const token = await sessionToken(live, uniqueEmail('live'));
      dnsimple.setDomain('taken-upstream.com', { available: false });
      const res = await live.fetch('/api/v1/domains/availability?name=taken-upstream.com', { headers: bearer(token) });
      expect(await res.json()).toMatchObject({ name: 'taken-upstream.com', available: false });
      expect(dnsimple.requestsTo('GET', '/registrar/domains/taken-upstream.com/check')).toHaveLength(1);
      expect(dnsimple.requestsTo('GET', '/registrar/domains/taken-upstream.com/check')[0]!.headers.authorization).toBe(
        `Bearer ${dnsimple.token}`,
      );

      dnsimple.fail({ path: /broken\.com\/check$/, times: 10 }, { status: 503 });
      const answer = await live.fetch('/api/v1/domains/availability/bulk', {
        method: 'POST',
        headers: jsonHeaders(token),
        body: JSON.stringify({ names: ['fine-upstream.com', 'broken.com'] }),
      });
      const { results } = await readJson<{ results: Slot[] }>(answer);
      expect(results[0]).toMatchObject({ name: 'fine-upstream.com', available: true });
      expect(results[1]).toMatchObject({ name: 'broken.com', error: { code: 'UPSTREAM_UNAVAILABLE' } });
    } finally {
      await live.close();
      await dnsimple.close();
    }
  });
});
