import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../../../test/support/testApp.js';
import { bearer, createKey, jsonHeaders } from '../../../test/support/actors.js';
import { readJson, type FieldErrorBody, type MessageErrorBody } from '../../../test/support/http.js';
import { dnsCustomer, insertActiveDomain, type Customer } from '../../../test/support/domains.js';
import { randomBase62 } from '../../ids.js';

/**
 * lego's `httpreq` protocol (docs/certificates.md): present and cleanup of one value at a name, as
 * lego sends them (HTTP Basic with an API key as the password). Test mode, so the rows are the
 * whole story here; src/features/dns/certificatesLive.test.ts runs lego itself against PowerDNS and pebble.
 */
let app: TestApp;
beforeAll(async () => {
  app = await startTestApp();
});
afterAll(() => app?.close());

const digest = () => randomBase62(43);
const basic = (password: string, user = 'lego') => ({ authorization: `Basic ${Buffer.from(`${user}:${password}`).toString('base64')}`, 'content-type': 'application/json' });

async function setUp(): Promise<{ c: Customer; domain: string; send: (step: 'present' | 'cleanup', body: unknown, headers?: Record<string, string>) => Promise<Response>; txt: (name: string) => Promise<string[]> }> {
  const c = await dnsCustomer(app, 'test');
  const domain = await insertActiveDomain(app, c, { name: `httpreq-${randomBase62(8).toLowerCase()}.com` });
  const send = (step: 'present' | 'cleanup', body: unknown, headers: Record<string, string> = basic(c.key)) =>
    app.fetch(`/api/v1/orgs/${c.org.id}/acme/httpreq/${step}`, { method: 'POST', headers, body: JSON.stringify(body) });
  const txt = async (name: string) => {
    const page = await readJson<{ data: { content: string }[] }>(
      await app.fetch(`/api/v1/orgs/${c.org.id}/domains/${domain}/records?type=TXT&name=${encodeURIComponent(name)}&limit=100`, { headers: bearer(c.key) }),
    );
    return page.data.map((r) => r.content).sort();
  };
  return { c, domain, send, txt };
}

describe('httpreq present and cleanup', () => {
  it('adds exactly one value, keeps the others at the name, and both steps are idempotent', async () => {
    const { c, domain, send, txt } = await setUp();
    const fqdn = `_acme-challenge.${domain}.`;
    const [apex, wildcard] = [digest(), digest()];
    const unrelated = await app.fetch(`/api/v1/orgs/${c.org.id}/domains/${domain}/records`, {
      method: 'POST',
      headers: jsonHeaders(c.key),
      body: JSON.stringify({ type: 'TXT', name: '_acme-challenge', content: 'left by another client' }),
    });
    expect(unrelated.status).toBe(201);

    const first = await send('present', { fqdn, value: apex });
    expect(first.status).toBe(200);
    expect(await readJson(first)).toEqual({ fqdn, value: apex, domain, status: 'present' });
    expect((await send('present', { fqdn, value: apex })).status).toBe(200);
    // The challenge of *.domain stands at the same name, beside the apex's.
    expect((await send('present', { fqdn: fqdn.toUpperCase(), value: wildcard })).status).toBe(200);
    expect(await txt('_acme-challenge')).toEqual([apex, wildcard, 'left by another client'].sort());

    const cleaned = await send('cleanup', { fqdn, value: apex });
    expect(await readJson(cleaned)).toEqual({ fqdn, value: apex, domain, status: 'absent' });
    expect((await send('cleanup', { fqdn, value: apex })).status).toBe(200);
    expect(await txt('_acme-challenge')).toEqual([wildcard, 'left by another client'].sort());
    expect((await send('cleanup', { fqdn, value: wildcard })).status).toBe(200);
    expect(await txt('_acme-challenge')).toEqual(['left by another client']);

    // Concurrent presents of one value make one record.
    const value = digest();
    const answers = await Promise.all(Array.from({ length: 4 }, () => send('present', { fqdn: `_acme-challenge.www.${domain}`, value })));
    expect(answers.map((a) => a.status)).toEqual([200, 200, 200, 200]);
    expect(await txt('_acme-challenge.www')).toEqual([value]);
  });

  it('writes through the record service: events and audit entries by the key', async () => {
    const { c, domain, send } = await setUp();
    const value = digest();
    await send('present', { fqdn: `_acme-challenge.${domain}`, value });
    await send('cleanup', { fqdn: `_acme-challenge.${domain}`, value });
    const events = await readJson<{ data: { type: string; data: { object: { name: string; content: string } } }[] }>(
      await app.fetch(`/api/v1/orgs/${c.org.id}/events?limit=10`, { headers: { ...bearer(c.session), 'x-mode': 'test' } }),
    );
    expect(events.data.map((e) => `${e.type} ${e.data.object.name} ${e.data.object.content}`)).toEqual([
      `dns_record.deleted _acme-challenge ${value}`,
      `dns_record.created _acme-challenge ${value}`,
    ]);
  });

  it('takes Bearer too; refuses bad bodies, unknown names and keys outside their restrictions', async () => {
    const { c, domain, send } = await setUp();
    expect((await send('present', { fqdn: `_acme-challenge.${domain}`, value: digest() }, jsonHeaders(c.key))).status).toBe(200);

    const bad = await send('present', { fqdn: 'not a name', value: 'short' });
    expect(bad.status).toBe(422);
    expect((await readJson<FieldErrorBody>(bad)).detail.map((e) => `${e.loc.join('.')}: ${e.msg}`)).toEqual([
      'body.fqdn: Must be a fully qualified name such as _acme-challenge.example.com.',
      'body.value: Must be 43 base64url characters (the key authorization’s SHA-256 digest, RFC 8555 8.4)',
    ]);
    const elsewhere = await send('present', { fqdn: '_acme-challenge.not-ours.com', value: digest() });
    expect(elsewhere.status).toBe(404);

    const restricted = await createKey(app, c.session, { name: 'certs', preset: 'certificates', mode: 'test', allowed_records: [`_acme-challenge.${domain}:TXT`] });
    expect((await send('present', { fqdn: `_acme-challenge.${domain}`, value: digest() }, basic(restricted.key))).status).toBe(200);
    const outside = await send('present', { fqdn: `www.${domain}`, value: digest() }, basic(restricted.key));
    expect(await readJson<MessageErrorBody>(outside)).toMatchObject({ code: 'RECORD_NOT_ALLOWED' });
    const otherDomain = await createKey(app, c.session, { name: 'other', scopes: ['dns:write'], mode: 'test', allowed_domains: ['example.org'] });
    expect(await readJson<MessageErrorBody>(await send('present', { fqdn: `_acme-challenge.${domain}`, value: digest() }, basic(otherDomain.key)))).toMatchObject({
      code: 'DOMAIN_NOT_ALLOWED',
    });
    const reader = await createKey(app, c.session, { name: 'reader', scopes: ['dns:read'], mode: 'test' });
    expect(await readJson<MessageErrorBody>(await send('present', { fqdn: `_acme-challenge.${domain}`, value: digest() }, basic(reader.key)))).toMatchObject({
      code: 'INSUFFICIENT_SCOPE',
    });
  });

  it('answers a key outside its allowed_records the same whether the value, or the domain, is there or not', async () => {
    const { c, domain, send } = await setUp();
    const value = digest();
    // Another client of the organisation left this value at a name the restricted key may not touch.
    expect((await send('present', { fqdn: `www.${domain}`, value })).status).toBe(200);
    const restricted = await createKey(app, c.session, { name: 'certs', preset: 'certificates', mode: 'test', allowed_records: [`_acme-challenge.${domain}:TXT`] });
    const answers = [];
    for (const [step, fqdn, asked] of [
      ['present', `www.${domain}`, value],
      ['present', `www.${domain}`, digest()],
      ['cleanup', `www.${domain}`, value],
      ['cleanup', `www.${domain}`, digest()],
      ['present', `_acme-challenge.not-ours-${randomBase62(6).toLowerCase()}.com`, digest()],
      ['cleanup', `_acme-challenge.not-ours-${randomBase62(6).toLowerCase()}.com`, digest()],
    ] as const) {
      const res = await send(step, { fqdn, value: asked }, basic(restricted.key));
      answers.push([res.status, (await readJson<MessageErrorBody>(res)).code]);
    }
    expect(answers).toEqual(Array.from({ length: 6 }, () => [403, 'RECORD_NOT_ALLOWED']));
  });

  it('counts a failing Basic password against its address: past the limit 429, while a good key from there still works', async () => {
    const { c, domain, send } = await setUp();
    const address = `198.51.100.${Math.floor(Math.random() * 250) + 1}`;
    const from = (headers: Record<string, string>) => ({ ...headers, 'x-forwarded-for': address });
    const notAKey = await send('present', { fqdn: `_acme-challenge.${domain}`, value: digest() }, from(basic('hunter2')));
    expect(notAKey.status).toBe(401);
    expect(await readJson<MessageErrorBody>(notAKey)).toMatchObject({ code: 'INVALID_TOKEN', detail: expect.stringContaining('the password must be an API key') });
    // Failures until the first 429: the pool holds 60 a minute and refills one a second, so a slow
    // run may see more than 60 before it, but never more than one more for each second it took.
    const started = Date.now();
    const statuses: number[] = [];
    while (statuses.length < 200 && statuses.at(-1) !== 429) {
      statuses.push((await send('present', { fqdn: `_acme-challenge.${domain}`, value: digest() }, from(basic(`svc_test_${randomBase62(38)}`)))).status);
    }
    const refilled = Math.ceil((Date.now() - started) / 1_000);
    expect(statuses.at(-1)).toBe(429);
    expect(statuses.slice(0, -1).every((s) => s === 401)).toBe(true);
    expect(statuses.length - 1).toBeLessThanOrEqual(60 + refilled);
    expect((await send('present', { fqdn: `_acme-challenge.${domain}`, value: digest() }, from(basic(c.key)))).status).toBe(200);
  });
});
