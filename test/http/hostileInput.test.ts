/**
 * Bodies, paths, queries and headers a hostile or broken client sends: every one is a 4xx with the
 * spec's `{detail, code}` body, refused before anything is stored or reserved.
 */
import net from 'node:net';
import { gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../support/testApp.js';
import { DEFAULT_HTTP_TIMEOUTS, listen } from '../../src/http/listen.js';
import { createApp } from '../../src/app.js';
import { defineRoute } from '../../src/http/route.js';
import { bearer, createKey, jsonHeaders } from '../support/actors.js';
import { dnsCustomer, insertActiveDomain, type Customer } from '../support/domains.js';
import { readJson, type FieldErrorBody } from '../support/http.js';

let app: TestApp;
let customer: Customer;
let domain: string;
let contactId: string;
let readKey: string;
/** Error-level log lines: a client's mistake must not be logged as our failure. */
const errorLog: string[] = [];

const CONTACT = {
  first_name: 'Ada',
  last_name: 'Lovelace',
  email: 'ada@example.com',
  phone: '+442071838750',
  address1: '1 High St',
  city: 'London',
  postal_code: 'EC1A 1BB',
  country: 'GB',
};

/** Values that slip past every schema straight into PostgreSQL, for the SQLSTATE backstop. */
const UNSTORABLE: Record<string, [string, unknown[]]> = {
  nul: ['SELECT $1::text', ['a\u0000b']],
  year: ['SELECT $1::timestamptz', ['-100000-01-01T00:00:00Z']],
  number: ['SELECT $1::int', ['12345678901234567890']],
  text: ['SELECT $1::int', ['twelve']],
};
const backstopRoute = defineRoute({
  method: 'get',
  path: '/test/unstorable/{case}',
  operationId: 'testUnstorable',
  summary: 'Sends a value PostgreSQL refuses, without validation',
  tags: ['test'],
  scope: 'public',
  responses: {},
  handler: async (ctx) => {
    const [sql, params] = UNSTORABLE[ctx.params.case ?? '']!;
    await app.deps.db.query(sql, params);
  },
});

beforeAll(async () => {
  app = await startTestApp({
    env: { LOG_LEVEL: 'error' },
    logDestination: { write: (line) => errorLog.push(line) },
    extraRoutes: [backstopRoute],
  });
  // Hundreds of hostile writes from one user: dnsCustomer's organisation is on the plan whose limits allow that.
  customer = await dnsCustomer(app, 'test');
  domain = await insertActiveDomain(app, customer);
  const top = await app.fetch(`/api/v1/orgs/${customer.org.id}/billing/top-ups`, {
    method: 'POST',
    headers: jsonHeaders(customer.key),
    body: JSON.stringify({ amount: 10_000 }),
  });
  expect(top.status).toBe(201);
  const contact = await app.fetch(`/api/v1/orgs/${customer.org.id}/contacts`, {
    method: 'POST',
    headers: jsonHeaders(customer.key),
    body: JSON.stringify(CONTACT),
  });
  contactId = (await readJson<{ id: string }>(contact)).id;
  const scopes = ['domains:read', 'contacts:read', 'dns:read', 'billing:read'];
  readKey = (await createKey(app, customer.session, { name: 'reader', scopes, mode: 'test' })).key;
});
afterAll(async () => app?.close());

const orgPath = (rest: string) => `/api/v1/orgs/${customer.org.id}${rest}`;

function send(method: string, path: string, body: string | undefined, headers: Record<string, string> = {}, token = customer.key) {
  return app.fetch(path, { method, headers: { ...jsonHeaders(token), ...headers }, ...(body === undefined ? {} : { body }) });
}

async function expectFieldError(res: Response, status: number, code: string, loc?: string[]) {
  const text = await res.text();
  expect(res.status, text).toBe(status);
  const body = JSON.parse(text) as FieldErrorBody;
  expect(body.code).toBe(code);
  if (loc) expect(body.detail).toEqual(expect.arrayContaining([expect.objectContaining({ loc })]));
  return body;
}

async function balance() {
  return readJson<{ available: number; reserved: number }>(await app.fetch(orgPath('/billing/balance'), { headers: bearer(customer.key) }));
}

/** A raw HTTP exchange, for what `fetch` will not send: wrong lengths, stalled bodies, invalid UTF-8. */
function rawRequest(head: string, body: Buffer | string, opts: { end?: boolean; url?: string } = {}): Promise<string> {
  const { port } = new URL(opts.url ?? app.url);
  return new Promise((resolve, reject) => {
    const socket = net.connect(Number(port), '127.0.0.1');
    let answer = '';
    socket.setTimeout(10_000, () => socket.destroy(new Error('the server held the connection for 10 s without answering')));
    socket.on('data', (chunk) => (answer += chunk.toString('utf8')));
    socket.on('close', () => resolve(answer));
    socket.on('error', reject);
    socket.write(head);
    socket.write(body);
    if (opts.end) socket.end();
  });
}

/** POST /api/v1/orgs requests the app has finished with, error handling included (src/metrics/http.ts sits outside it). */
async function orgCreationsHandled(): Promise<number> {
  const { values } = await app.deps.metrics.httpRequestDuration.get();
  return values
    .filter((v) => v.metricName === 'http_request_duration_seconds_count' && v.labels.route === '/api/v1/orgs' && v.labels.method === 'POST')
    .reduce((sum, v) => sum + v.value, 0);
}

afterAll(() => {
  // Every request in this file is a client's mistake: none may be logged as a server failure.
  expect(errorLog).toEqual([]);
});

describe('deeply nested JSON', () => {
  const deep = (depth: number) => '['.repeat(depth) + ']'.repeat(depth);
  const nestedObject = (depth: number) => '{"a":'.repeat(depth) + '1' + '}'.repeat(depth);

  it.each([
    ['register', '/domains'],
    ['transfer', '/domains/transfers'],
    ['renew', '/domains/DOMAIN/renew'],
    ['DNS record create', '/domains/DOMAIN/records'],
  ])('is 400 INVALID_JSON naming the limit on %s, with an Idempotency-Key', async (_name, rest) => {
    for (const body of [deep(10_000), nestedObject(10_000)]) {
      const res = await send('POST', orgPath(rest.replace('DOMAIN', domain)), body, { 'idempotency-key': `deep-${Math.random()}` });
      const err = await expectFieldError(res, 400, 'INVALID_JSON', ['body']);
      expect(err.detail[0]!.msg).toMatch(/nest.*\b64\b/);
    }
  });

  it('still accepts ordinary nesting', async () => {
    const res = await send('POST', orgPath(`/domains/${domain}/records`), JSON.stringify({ type: 'TXT', name: 'ok', content: 'fine' }));
    expect(res.status).toBe(201);
  });
});

describe('NUL and lone surrogates in strings', () => {
  it('refuses NUL in DNS record content with 422 on the field', async () => {
    const res = await send('POST', orgPath(`/domains/${domain}/records`), JSON.stringify({ type: 'TXT', name: 'n', content: 'a\u0000b' }), {
      'idempotency-key': 'nul-record',
    });
    await expectFieldError(res, 422, 'VALIDATION_ERROR', ['body', 'content']);
  });

  it('refuses NUL in org and key names', async () => {
    await expectFieldError(await send('POST', '/api/v1/orgs', JSON.stringify({ name: 'Ac\u0000me' }), {}, customer.session), 422, 'VALIDATION_ERROR', ['body', 'name']);
    const key = await send('POST', '/api/v1/me/api-keys', JSON.stringify({ name: 'k\u0000', scopes: ['domains:read'], mode: 'test' }), {}, customer.session);
    await expectFieldError(key, 422, 'VALIDATION_ERROR', ['body', 'name']);
  });

  it('refuses NUL in every contact field and in contact ids', async () => {
    for (const field of Object.keys(CONTACT)) {
      const res = await send('POST', orgPath('/contacts'), JSON.stringify({ ...CONTACT, [field]: `x\u0000` }));
      await expectFieldError(res, 422, 'VALIDATION_ERROR', ['body', field]);
    }
    const register = await send('POST', orgPath('/domains'), JSON.stringify({ name: 'nul-contact.com', registrant_contact_id: 'ct_\u0000' }), {
      'idempotency-key': 'nul-contact',
    });
    await expectFieldError(register, 422, 'VALIDATION_ERROR', ['body', 'registrant_contact_id']);
  });

  it('refuses NUL in name servers, on register and on PATCH', async () => {
    const register = await send(
      'POST',
      orgPath('/domains'),
      JSON.stringify({ name: 'nul-ns.com', registrant_contact_id: contactId, nameservers: ['ns1.example.net', 'ns\u0000.example.net'] }),
      { 'idempotency-key': 'nul-ns' },
    );
    await expectFieldError(register, 422, 'VALIDATION_ERROR', ['body', 'nameservers', '1']);
    const patch = await send('PATCH', orgPath(`/domains/${domain}`), JSON.stringify({ nameservers: ['ns\u0000.example.net', 'ns2.example.net'] }), {
      'if-match': '*',
    });
    expect(patch.status).toBe(422);
  });

  it('refuses NUL in a transfer auth code before any money is reserved', async () => {
    const before = await balance();
    const res = await send('POST', orgPath('/domains/transfers'), JSON.stringify({ name: 'nul-transfer.com', auth_code: 'ab\u0000cd', registrant_contact_id: contactId }), {
      'idempotency-key': 'nul-transfer',
    });
    await expectFieldError(res, 422, 'VALIDATION_ERROR', ['body', 'auth_code']);
    expect(await balance()).toEqual(before);
  });

  it('refuses lone surrogates (422) and invalid UTF-8 (400) instead of storing U+FFFD', async () => {
    const surrogate = await send('POST', orgPath(`/domains/${domain}/records`), '{"type":"TXT","name":"s","content":"a\\ud800b"}');
    await expectFieldError(surrogate, 422, 'VALIDATION_ERROR', ['body', 'content']);
    const key = await send('POST', '/api/v1/orgs', '{"name":"\\udc00"}', {}, customer.session);
    await expectFieldError(key, 422, 'VALIDATION_ERROR', ['body', 'name']);
    const invalid = Buffer.concat([Buffer.from('{"name":"Acme '), Buffer.from([0xc3, 0x28]), Buffer.from('"}')]);
    const res = await app.fetch('/api/v1/orgs', { method: 'POST', headers: jsonHeaders(customer.session), body: invalid });
    const body = await expectFieldError(res, 400, 'INVALID_JSON', ['body']);
    expect(body.detail[0]!.msg).toMatch(/UTF-8/);
  });
});

describe('path ids and cursors', () => {
  const ids = () => [
    `/api/v1/orgs/org_%00`,
    orgPath('/contacts/ct_%00'),
    orgPath('/domains/a%00.com'),
    orgPath('/domains/a%00.com/auth-code'),
    orgPath('/operations/op_%00'),
    orgPath(`/domains/${domain}/records/rec_%00`),
    `/api/v1/me/api-keys/key_%00`,
    orgPath('/members/usr_%00'),
    `/api/v1/orgs/org_%00/domains`,
    orgPath(`/domains/a%00.com/records`),
  ];

  it('answers %00 in any path id with a 4xx and the error body', async () => {
    for (const path of ids()) {
      for (const token of [customer.key, customer.session]) {
        const res = await app.fetch(path, { headers: bearer(token) });
        const text = await res.text();
        expect(res.status, `${path}: ${text}`).toBeGreaterThanOrEqual(400);
        expect(res.status, `${path}: ${text}`).toBeLessThan(500);
        expect(JSON.parse(text)).toHaveProperty('code');
      }
    }
    // Without credentials the answer is still exactly the spec's 401.
    const anonymous = await app.fetch('/api/v1/orgs/org_%00');
    expect([anonymous.status, await anonymous.json()]).toEqual([401, { detail: 'Not authenticated' }]);
    const post = await send('POST', orgPath('/domains/a%00.com/renew'), '{"years":1}', { 'idempotency-key': 'nul-renew' });
    expect(post.status).toBeLessThan(500);
    const del = await send('DELETE', orgPath('/contacts/ct_%00'), undefined);
    expect(del.status).toBeLessThan(500);
  });

  it('answers malformed percent-encoding and dot segments with a 4xx', async () => {
    for (const path of [orgPath('/contacts/%E0%A4%A'), orgPath('/contacts/..'), orgPath('/contacts/%2e%2e'), orgPath('/domains/%2e%2e%2f%2e%2e')]) {
      const res = await app.fetch(path, { headers: bearer(customer.key) });
      expect(res.status, path).toBeGreaterThanOrEqual(400);
      expect(res.status, path).toBeLessThan(500);
      expect(await res.json()).toHaveProperty('code');
    }
  });

  const cursor = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');

  it('refuses cursors that decode to NUL ids or impossible dates', async () => {
    const lists = ['/domains', '/contacts', '/operations', `/domains/${domain}/records`, '/billing/transactions', '/members'];
    const bad = [
      cursor(['2024-01-01T00:00:00.000Z', 'ct_\u0000']),
      cursor(['-100000-01-01T00:00:00.000Z', 'ct_a']),
      cursor(['+275760-09-13T00:00:00.000Z', 'ct_a']),
      cursor(['2024-01-01T00:00:00.000Z', 5]),
      cursor({ a: 1 }),
    ];
    for (const list of lists) {
      for (const c of bad) {
        // Members are read with the session, the rest (test-mode resources) with the test key.
        const token = list === '/members' ? customer.session : readKey;
        const res = await app.fetch(orgPath(`${list}?cursor=${c}`), { headers: bearer(token) });
        await expectFieldError(res, 422, 'VALIDATION_ERROR', ['query', 'cursor']);
      }
    }
    const orgs = await app.fetch(`/api/v1/orgs?cursor=${bad[0]}`, { headers: bearer(customer.session) });
    await expectFieldError(orgs, 422, 'VALIDATION_ERROR', ['query', 'cursor']);
  });
});

describe('shapes no schema expects', () => {
  it('refuses huge numbers and wrong types with 422', async () => {
    const bodies = [
      '{"type":"TXT","name":"x","content":"y","ttl":1e308}',
      '{"type":"TXT","name":"x","content":"y","ttl":123456789012345678901234567890}',
      JSON.stringify({ type: ['TXT'], name: { a: 1 }, content: [[['y']]], ttl: '300' }),
      JSON.stringify({ type: 'MX', name: 'x', content: 'mx.example.net', priority: -1e20 }),
    ];
    for (const body of bodies) {
      const res = await send('POST', orgPath(`/domains/${domain}/records`), body, { 'idempotency-key': `shape-${Math.random()}` });
      expect(res.status).toBe(422);
    }
    const renew = await send('POST', orgPath(`/domains/${domain}/renew`), '{"years":1e400}', { 'idempotency-key': 'huge-years' });
    expect(renew.status).toBe(422);
  });

  it('refuses repeated query parameters and very long header values with a 4xx', async () => {
    for (const query of ['limit=1&limit=2', 'cursor=a&cursor=b', 'type=A&type=TXT']) {
      const res = await app.fetch(orgPath(`/domains/${domain}/records?${query}`), { headers: bearer(customer.key) });
      expect(res.status, query).toBe(422);
      expect(await res.json()).toHaveProperty('code', 'VALIDATION_ERROR');
    }
    const long = 'x'.repeat(10_000);
    const headerSets: Record<string, string>[] = [{ 'idempotency-key': long }, { authorization: `Bearer ${long}` }];
    for (const headers of headerSets) {
      const res = await send('POST', orgPath(`/domains/${domain}/records`), JSON.stringify({ type: 'TXT', name: 'h', content: 'v' }), headers);
      expect(res.status, Object.keys(headers)[0]).toBeGreaterThanOrEqual(400);
      expect(res.status, Object.keys(headers)[0]).toBeLessThan(500);
      expect(await res.json()).toHaveProperty('detail');
    }
    // A request id nobody could want is replaced by one of ours, never echoed.
    const echoed = await app.fetch('/healthz', { headers: { 'x-request-id': long } });
    expect(echoed.headers.get('x-request-id')).not.toBe(long);
    const patch = await send('PATCH', orgPath(`/domains/${domain}`), JSON.stringify({ auto_renew: true }), { 'if-match': long });
    expect(patch.status).toBeGreaterThanOrEqual(400);
    expect(patch.status).toBeLessThan(500);
  });

  it('refuses a compressed body with 415 rather than reading it as plain JSON', async () => {
    const res = await app.fetch('/api/v1/orgs', {
      method: 'POST',
      headers: { ...jsonHeaders(customer.session), 'content-encoding': 'gzip' },
      body: gzipSync(JSON.stringify({ name: 'Gzip Inc' })),
    });
    await expectFieldError(res, 415, 'INVALID_JSON', ['header', 'content-encoding']);
  });

  it('answers a body shorter than its Content-Length with 400, not a 500', async () => {
    const logged = errorLog.length;
    const handled = await orgCreationsHandled();
    const body = '{"name":"Short"}';
    const answer = await rawRequest(
      `POST /api/v1/orgs HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${customer.session}\r\nContent-Type: application/json\r\nContent-Length: ${body.length + 50}\r\nConnection: close\r\n\r\n`,
      body,
      { end: true },
    );
    // The client is gone or says it is done: either nothing or a 400 comes back, never a 5xx.
    expect(answer).not.toMatch(/^HTTP\/1\.1 5/);
    if (answer) expect(answer).toMatch(/^HTTP\/1\.1 400/);
    // Once the request is counted, its handling (and any error it logged) is over, even if the client left first.
    await expect.poll(orgCreationsHandled).toBe(handled + 1);
    expect(errorLog.slice(logged)).toEqual([]);
  });
});

describe('values PostgreSQL refuses, past every schema', () => {
  it.each(Object.keys(UNSTORABLE))('%s is a 422, not a 500', async (name) => {
    await expectFieldError(await app.fetch(`/test/unstorable/${name}`), 422, 'VALIDATION_ERROR', ['body']);
  });
});

describe('a stalled body', () => {
  it('is cut off after the configured request timeout', async () => {
    const server = await listen(createApp(app.deps), '127.0.0.1', 0, { ...DEFAULT_HTTP_TIMEOUTS, requestTimeoutMs: 500, headersTimeoutMs: 400 });
    try {
      const started = Date.now();
      const answer = await rawRequest(
        `POST /api/v1/orgs HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${customer.session}\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n`,
        '{"na',
        { url: server.url },
      );
      expect(Date.now() - started).toBeLessThan(5_000);
      expect(answer).toMatch(/^HTTP\/1\.1 408/);
    } finally {
      await server.close(100);
    }
  });
});
