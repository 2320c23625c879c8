import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { BAD_GATEWAY_HTML, FakeDnsimple } from '../../test/support/fakeDnsimple.js';
import { DnsimpleRegistrar } from './dnsimple.js';
import { DomainLockedError, RegistrarAccountError, RegistrarRejectedError, RegistrarUnavailableError, isTransient, retryAfterSeconds } from './errors.js';
import type { ContactDetails, PriceTable } from './port.js';

const prices: PriceTable = { currency: 'USD', tlds: { com: { register: 1200, renew: 1400, transfer: 1100 } } };
const registrant: ContactDetails = {
  first_name: 'Ada',
  last_name: 'Lovelace',
  organization: 'Analytical Engines Ltd',
  email: 'ada@example.com',
  phone: '+442071234567',
  address1: '12 St James Square',
  city: 'London',
  state: 'LND',
  postal_code: 'SW1Y 4JH',
  country: 'gb',
};

let fake: FakeDnsimple;
let registrar: DnsimpleRegistrar;

function adapter(overrides: { baseUrl?: string; timeoutMs?: number; paidTimeoutMs?: number; token?: string } = {}): DnsimpleRegistrar {
  return new DnsimpleRegistrar(
    {
      baseUrl: overrides.baseUrl ?? fake.url,
      accountId: fake.accountId,
      token: overrides.token ?? fake.token,
      timeoutMs: overrides.timeoutMs ?? 2_000,
      paidTimeoutMs: overrides.paidTimeoutMs ?? 2_000,
    },
    prices,
  );
}

async function rejection(promise: Promise<unknown>): Promise<unknown> {
  return promise.then(
    () => expect.fail('expected a rejection'),
    (err: unknown) => err,
  );
}

/** A loopback port with nothing listening on it. */
async function closedPort(): Promise<number> {
  const server = http.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

beforeAll(async () => {
  fake = await FakeDnsimple.start({ accountId: '1010', token: 'sandbox-token-abc' });
});
afterAll(async () => {
  await fake.close();
});
beforeEach(() => {
  fake.requests.length = 0;
  fake.processingMs = 20;
  fake.transferMs = 60;
  fake.accountProblem = null;
  registrar = adapter();
});

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('DNSimple adapter: requests', () => {
  it('sends bearer auth, JSON headers and a User-Agent to /v2/{account}/registrar/domains/{domain}/check', async () => {
    expect(await registrar.checkAvailability('Fresh-Name.com')).toEqual({
      name: 'fresh-name.com',
      available: true,
      premium: false,
      price: { amount: 1200, currency: 'USD' },
    });
    expect(fake.requests).toHaveLength(1);
    const [req] = fake.requests;
    expect(req).toMatchObject({ method: 'GET', path: '/v2/1010/registrar/domains/fresh-name.com/check', rawBody: '' });
    expect(req!.headers).toMatchObject({
      authorization: 'Bearer sandbox-token-abc',
      accept: 'application/json',
      'content-type': 'application/json',
      'user-agent': expect.stringMatching(/^domain-service\//),
    });
  });

  it('accepts a base URL that already ends in /v2', async () => {
    await adapter({ baseUrl: `${fake.url}/v2/` }).checkAvailability('fresh-name.com');
    expect(fake.requests[0]!.path).toBe('/v2/1010/registrar/domains/fresh-name.com/check');
  });

  it('answers unavailable names without a price', async () => {
    fake.setDomain('owned.com', { available: false });
    expect(await registrar.checkAvailability('owned.com')).toEqual({ name: 'owned.com', available: false, premium: false, price: null });
  });

  it('does not call DNSimple for TLDs missing from the price table', async () => {
    expect(await registrar.checkAvailability('example.pizza')).toMatchObject({ available: false, reason: 'unsupported_tld' });
    expect(fake.requests).toHaveLength(0);
  });

  it('quotes premium names from the prices endpoint, in integer cents', async () => {
    fake.setDomain('ruby-gem.com', { premium: true, registrationPrice: 109.99 });
    expect(await registrar.checkAvailability('ruby-gem.com')).toEqual({
      name: 'ruby-gem.com',
      available: true,
      premium: true,
      price: { amount: 10999, currency: 'USD' },
    });
    expect(fake.requests.map((r) => `${r.method} ${r.path}`)).toEqual([
      'GET /v2/1010/registrar/domains/ruby-gem.com/check',
      'GET /v2/1010/registrar/domains/ruby-gem.com/prices',
    ]);
  });
});

describe('DNSimple adapter: register', () => {
  it('creates the contact, reads the domain, registers with registrant_id (201 new), then polls to registered', async () => {
    const result = await registrar.register({ name: 'new-site.com', years: 1, registrant, autoRenew: true, nameservers: ['ns1.example.net'] });
    // fixtures/v2/api/registerDomain/success.http answers `state: new`.
    expect(result).toMatchObject({ state: 'pending', registrarReference: expect.stringMatching(/^\d+$/), nameserversApplied: false });
    await pause(40);
    expect(await registrar.registrationStatus({ name: 'new-site.com', registrarReference: result.registrarReference! })).toEqual({
      state: 'registered',
      expiresAt: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
    });

    const [contact] = fake.requestsTo('POST', '/v2/1010/contacts');
    expect(contact!.headers['content-type']).toBe('application/json');
    expect(contact!.body).toEqual({
      first_name: 'Ada',
      last_name: 'Lovelace',
      organization_name: 'Analytical Engines Ltd',
      job_title: 'Registrant',
      email: 'ada@example.com',
      phone: '+442071234567',
      address1: '12 St James Square',
      address2: '',
      city: 'London',
      state_province: 'LND',
      postal_code: 'SW1Y 4JH',
      country: 'GB',
    });

    const [registration] = fake.requestsTo('POST', '/registrar/domains/new-site.com/registrations');
    expect(registration!.headers).toMatchObject({ authorization: 'Bearer sandbox-token-abc', 'content-type': 'application/json' });
    // Request bodies are flat: only responses are wrapped in {"data": ...}. Auto-renew stays off upstream.
    expect(registration!.body).toEqual({ registrant_id: Number(result.registrantRegistrarId), auto_renew: false });
    // Once before the POST (nothing there yet), once for the expiry.
    expect(fake.requestsTo('GET', '/v2/1010/domains/new-site.com')).toHaveLength(2);
  });

  it('reuses a registrant id it is given instead of creating a contact', async () => {
    const contactId = fake.addContact({ first_name: 'Existing' });
    await registrar.register({ name: 'reuse.com', years: 1, registrant, registrantRegistrarId: String(contactId) });
    expect(fake.requestsTo('POST', '/contacts')).toHaveLength(0);
    expect(fake.requestsTo('POST', '/registrations')[0]!.body).toEqual({ registrant_id: contactId, auto_renew: false });
  });

  it('sends the quoted premium price back as premium_price', async () => {
    fake.setDomain('bingo-pizza.com', { premium: true, registrationPrice: 20.0 });
    const quote = await registrar.checkAvailability('bingo-pizza.com');
    expect(quote.price).toEqual({ amount: 2000, currency: 'USD' });
    const result = await registrar.register({ name: 'bingo-pizza.com', years: 1, registrant, premiumPrice: quote.price! });
    expect(result.state).toBe('pending');
    expect(fake.requestsTo('POST', '/registrations')[0]!.body).toMatchObject({ premium_price: '20.00' });
  });

  it('answers pending while the registration runs and is polled to registered', async () => {
    fake.processingMs = 150;
    const result = await registrar.register({ name: 'slow-registry.com', years: 1, registrant });
    expect(result).toMatchObject({ state: 'pending', nameserversApplied: false });
    const reference = { name: 'slow-registry.com', registrarReference: result.registrarReference! };
    expect(await registrar.registrationStatus(reference)).toEqual({ state: 'pending' });
    await pause(200);
    expect(await registrar.registrationStatus(reference)).toEqual({ state: 'registered', expiresAt: expect.stringMatching(/^\d{4}-/) });
    expect(fake.requestsTo('GET', `/registrar/domains/slow-registry.com/registrations/${result.registrarReference}`)).toHaveLength(2);
  });

  it('refuses multi-year registrations before calling DNSimple (it takes no period)', async () => {
    const err = await rejection(registrar.register({ name: 'long.com', years: 3, registrant }));
    expect(err).toBeInstanceOf(RegistrarRejectedError);
    expect(fake.requests).toHaveLength(0);
  });

  it('reports a contact validation error permanently, with the upstream message and field errors', async () => {
    const stateless: ContactDetails = { ...registrant };
    delete stateless.state;
    const err = await rejection(registrar.register({ name: 'nostate.com', years: 1, registrant: stateless }));
    expect(err).toBeInstanceOf(RegistrarRejectedError);
    expect(isTransient(err)).toBe(false);
    expect(err).toMatchObject({
      status: 422,
      code: 'REGISTRAR_REJECTED',
      upstreamStatus: 400,
      upstreamErrors: { state_province: ["can't be blank"] },
      detail: expect.stringContaining("Validation failed (state_province: can't be blank)"),
    });
    expect(fake.requestsTo('POST', '/registrations')).toHaveLength(0);
  });
});

describe('DNSimple adapter: failures', () => {
  const check = () => registrar.checkAvailability('fault.com');

  it('classifies 502 (nginx HTML body) as transient', async () => {
    fake.fail({ path: '/v2/1010/registrar/domains/fault.com/check' }, { status: 502, body: BAD_GATEWAY_HTML });
    const err = await rejection(check());
    expect(err).toBeInstanceOf(RegistrarUnavailableError);
    expect(err).toMatchObject({ status: 503, code: 'UPSTREAM_UNAVAILABLE', upstreamStatus: 502, detail: expect.stringContaining('HTTP 502') });
    expect(isTransient(err)).toBe(true);
    expect(retryAfterSeconds(err)).toBeUndefined();
  });

  it('classifies 503 as transient and honours Retry-After when present', async () => {
    fake.fail({ method: 'GET' }, { status: 503, body: { message: 'Service Unavailable' }, headers: { 'retry-after': '7' } });
    const withHeader = await rejection(check());
    expect(isTransient(withHeader)).toBe(true);
    expect(retryAfterSeconds(withHeader)).toBe(7);
    expect((withHeader as RegistrarUnavailableError).headers).toEqual({ 'Retry-After': '7' });

    fake.fail({ method: 'GET' }, { status: 503, body: { message: 'Service Unavailable' } });
    const without = await rejection(check());
    expect(isTransient(without)).toBe(true);
    expect(retryAfterSeconds(without)).toBeUndefined();
  });

  it('classifies 429 as transient, with Retry-After in seconds or as an HTTP date', async () => {
    fake.fail({}, { status: 429, body: { message: 'quota exceeded' }, headers: { 'retry-after': '30' } });
    const seconds = await rejection(check());
    expect(isTransient(seconds)).toBe(true);
    expect(seconds).toMatchObject({ upstreamStatus: 429, retryAfterSeconds: 30, detail: expect.stringContaining('quota exceeded') });

    const inTwoMinutes = new Date(Date.now() + 120_000).toUTCString();
    fake.fail({}, { status: 429, body: { message: 'Monthly request cap reached' }, headers: { 'retry-after': inTwoMinutes } });
    const date = retryAfterSeconds(await rejection(check()));
    expect(date).toBeGreaterThanOrEqual(118);
    expect(date).toBeLessThanOrEqual(121);
  });

  it('falls back to X-RateLimit-Reset for a 429 without Retry-After', async () => {
    const reset = Math.floor(Date.now() / 1000) + 45;
    fake.fail({}, { status: 429, body: { message: 'quota exceeded' }, headers: { 'x-ratelimit-remaining': '0', 'x-ratelimit-reset': String(reset) } });
    const after = retryAfterSeconds(await rejection(check()));
    expect(after).toBeGreaterThanOrEqual(44);
    expect(after).toBeLessThanOrEqual(46);
  });

  it('times out slow answers and classifies them as transient', async () => {
    // An answer far slower than the timeout: giving up well before it arrives is giving up at the timeout.
    fake.fail({}, { delayMs: 20_000 });
    const started = Date.now();
    const err = await rejection(adapter({ timeoutMs: 200 }).checkAvailability('fault.com'));
    expect(Date.now() - started).toBeLessThan(10_000);
    expect(err).toBeInstanceOf(RegistrarUnavailableError);
    expect(err).toMatchObject({ detail: expect.stringContaining('within 200 ms') });
    expect(isTransient(err)).toBe(true);
  });

  it('classifies connection refused as transient', async () => {
    const err = await rejection(adapter({ baseUrl: `http://127.0.0.1:${await closedPort()}` }).checkAvailability('fault.com'));
    expect(err).toBeInstanceOf(RegistrarUnavailableError);
    expect(err).toMatchObject({ detail: expect.stringContaining('ECONNREFUSED') });
    expect(isTransient(err)).toBe(true);
  });

  it('classifies 400 as permanent, carrying the upstream message', async () => {
    fake.fail({}, { status: 400, body: { message: 'TLD .PINEAPPLE is not supported' } });
    const err = await rejection(check());
    expect(err).toBeInstanceOf(RegistrarRejectedError);
    expect(err).toMatchObject({ status: 422, code: 'REGISTRAR_REJECTED', upstreamStatus: 400, detail: 'The registrar refused: TLD .PINEAPPLE is not supported' });
    expect(isTransient(err)).toBe(false);
  });

  it('classifies 422 as permanent, with string-valued field errors too', async () => {
    fake.fail({}, { status: 422, body: { message: 'Invalid extended attributes', errors: { 'x-id-number': 'invalid number' } } });
    const err = await rejection(check());
    expect(err).toMatchObject({ code: 'REGISTRAR_REJECTED', upstreamStatus: 422, detail: expect.stringContaining('Invalid extended attributes (x-id-number: invalid number)') });
    expect(isTransient(err)).toBe(false);
  });

  it('answers 401, 402 and 403 as the operator\'s problem: 503 without the upstream text (openapi.yml responses 401, 402)', async () => {
    const bad = await rejection(adapter({ token: 'wrong' }).checkAvailability('fault.com'));
    expect(bad).toBeInstanceOf(RegistrarAccountError);
    expect(bad).toMatchObject({ status: 503, code: 'UPSTREAM_UNAVAILABLE', upstreamStatus: 401, operatorDetail: expect.stringContaining('Authentication failed') });
    expect((bad as RegistrarAccountError).message).not.toContain('Authentication');
    for (const problem of [402, 403] as const) {
      fake.accountProblem = problem;
      const err = await rejection(registrar.register({ name: `unpaid-${problem}.com`, years: 1, registrant }));
      expect(err).toMatchObject({ status: 503, code: 'UPSTREAM_UNAVAILABLE', upstreamStatus: problem });
      expect((err as RegistrarAccountError).message).not.toMatch(/invoice|Scope/);
      expect(isTransient(err)).toBe(false);
    }
    expect(fake.charges('unpaid-402.com').registrations).toBe(0);
  });

  it('treats a 2xx it cannot read as a permanent upstream problem', async () => {
    fake.fail({}, { status: 200, body: { data: { domain: 'fault.com' } } });
    const err = await rejection(check());
    expect(err).toBeInstanceOf(RegistrarUnavailableError);
    expect(isTransient(err)).toBe(false);
  });
});

describe('DNSimple adapter: transfer, renew, lock, auth code, contacts', () => {
  it('submits a transfer with auth_code and polls it to completed', async () => {
    fake.transferMs = 150;
    const submitted = await registrar.transfer({ name: 'incoming.com', authCode: 'xjfjfjvhc293', registrant });
    expect(submitted).toMatchObject({ state: 'transferring', registrarReference: expect.stringMatching(/^\d+$/) });
    expect(fake.requestsTo('POST', '/registrar/domains/incoming.com/transfers')[0]!.body).toEqual({
      registrant_id: Number(submitted.registrantRegistrarId),
      auth_code: 'xjfjfjvhc293',
      auto_renew: false,
    });
    const reference = { name: 'incoming.com', registrarReference: submitted.registrarReference! };
    expect(await registrar.transferStatus(reference)).toEqual({ state: 'pending' });
    await pause(200);
    expect(await registrar.transferStatus(reference)).toEqual({ state: 'completed', expiresAt: expect.stringMatching(/^\d{4}-/) });
  });

  it('rejects a transfer without auth code with DNSimple\'s validation message', async () => {
    const err = await rejection(registrar.transfer({ name: 'noauth.com', authCode: '', registrant }));
    expect(err).toMatchObject({ code: 'REGISTRAR_REJECTED', detail: expect.stringContaining('You must provide an authorization code for the domain') });
  });

  it('reports a failed transfer as rejected with its status_description', async () => {
    fake.setDomain('refused.com', { transferFailure: 'The losing registrar refused the transfer' });
    const submitted = await registrar.transfer({ name: 'refused.com', authCode: 'abc', registrant });
    await pause(100);
    expect(await registrar.transferStatus({ name: 'refused.com', registrarReference: submitted.registrarReference! })).toEqual({
      state: 'rejected',
      detail: 'The losing registrar refused the transfer',
    });
  });

  it('cancels a transfer with DELETE transfers/{id}: 202 queued, cancelled later (cancelDomainTransfer/success.http)', async () => {
    fake.transferMs = 5_000;
    const submitted = await registrar.transfer({ name: 'changed-mind.com', authCode: 'abc', registrant });
    const reference = { name: 'changed-mind.com', registrarReference: submitted.registrarReference! };
    expect(await registrar.cancelTransfer(reference)).toEqual({ state: 'pending' });
    expect(fake.requestsTo('DELETE', `/registrar/domains/changed-mind.com/transfers/${submitted.registrarReference}`)).toHaveLength(1);
    await pause(50);
    expect(await registrar.transferStatus(reference)).toEqual({ state: 'cancelled', detail: 'Canceled by customer' });
  });

  it('answers the completed transfer when a cancel lost the race (DNSimple\'s 400)', async () => {
    const submitted = await registrar.transfer({ name: 'too-late.com', authCode: 'abc', registrant });
    await pause(100);
    const reference = { name: 'too-late.com', registrarReference: submitted.registrarReference! };
    expect(await registrar.cancelTransfer(reference)).toEqual({ state: 'completed', expiresAt: expect.stringMatching(/^\d{4}-/) });
    expect(fake.charges('too-late.com').transfers).toBe(1);
  });

  it('reconciles a 404 on a known transfer reference from the domain instead of rejecting', async () => {
    fake.holdDomain('vanished-ref.com', '2031-02-03T00:00:00Z');
    expect(await registrar.transferStatus({ name: 'vanished-ref.com', registrarReference: '424242' })).toEqual({ state: 'completed', expiresAt: '2031-02-03T00:00:00Z' });
    expect(await registrar.registrationStatus({ name: 'vanished-ref.com', registrarReference: '424242' })).toEqual({ state: 'registered', expiresAt: '2031-02-03T00:00:00Z' });
    expect(await registrar.renewalStatus({ name: 'vanished-ref.com', registrarReference: '424242', expiresBefore: '2030-02-03T00:00:00Z' })).toEqual({
      state: 'renewed',
      expiresAt: '2031-02-03T00:00:00Z',
    });
  });

  it('turns auto-renewal off with DELETE auto_renewal (disableDomainAutoRenewal/success.http)', async () => {
    fake.holdDomain('keep-manual.com', '2030-01-01T00:00:00Z', { autoRenew: true });
    await registrar.disableAutoRenew('keep-manual.com');
    expect(fake.requestsTo('DELETE', '/v2/1010/registrar/domains/keep-manual.com/auto_renewal')).toHaveLength(1);
    expect(fake.domain('keep-manual.com').autoRenew).toBe(false);
  });

  it('renews with period and premium_price (201 new), then polls to the new expiry', async () => {
    fake.holdDomain('renew-me.com', '2030-05-01T00:00:00Z', { premium: true, renewalPrice: 14.5 });
    const result = await registrar.renew({ name: 'renew-me.com', years: 2, premiumPrice: { amount: 1450, currency: 'USD' }, expiresBefore: '2030-05-01T00:00:00Z' });
    expect(result).toEqual({ state: 'pending', registrarReference: expect.stringMatching(/^\d+$/) });
    expect(fake.requestsTo('POST', '/registrar/domains/renew-me.com/renewals')[0]!.body).toEqual({ period: 2, premium_price: '14.50' });
    await pause(40);
    expect(await registrar.renewalStatus({ name: 'renew-me.com', registrarReference: result.registrarReference! })).toEqual({ state: 'renewed', expiresAt: '2032-05-01T00:00:00Z' });
  });

  it('refuses a premium renewal or transfer without premium_price (registrar.md: required when premium)', async () => {
    fake.holdDomain('pricey.com', '2030-05-01T00:00:00Z', { premium: true, renewalPrice: 300 });
    expect(await rejection(registrar.renew({ name: 'pricey.com', years: 1 }))).toMatchObject({ code: 'REGISTRAR_REJECTED', upstreamStatus: 400 });
    fake.setDomain('pricey-in.com', { premium: true, transferPrice: 250 });
    expect(await rejection(registrar.transfer({ name: 'pricey-in.com', authCode: 'x', registrant }))).toMatchObject({ code: 'REGISTRAR_REJECTED' });
    const quoted = await registrar.quote('pricey-in.com');
    expect(quoted).toMatchObject({ premium: true, transfer: { amount: 25000, currency: 'USD' } });
    expect((await registrar.transfer({ name: 'pricey-in.com', authCode: 'x', registrant, premiumPrice: quoted.transfer })).state).toBe('transferring');
    expect(fake.requestsTo('POST', '/pricey-in.com/transfers').at(-1)!.body).toMatchObject({ premium_price: '250.00' });
  });

  it('refuses a renewal period above 9 before calling DNSimple', async () => {
    expect(await rejection(registrar.renew({ name: 'decade.com', years: 10 }))).toBeInstanceOf(RegistrarRejectedError);
    expect(fake.requests).toHaveLength(0);
  });

  it('passes on "may not be renewed at this time" as a permanent rejection', async () => {
    const err = await rejection(registrar.renew({ name: 'not-mine.com', years: 1 }));
    expect(err).toMatchObject({ code: 'REGISTRAR_REJECTED', detail: expect.stringContaining('may not be renewed at this time') });
  });

  it('locks with POST and unlocks with DELETE on transfer_lock', async () => {
    fake.holdDomain('lockable.com');
    expect(await registrar.setLock({ name: 'lockable.com', locked: true })).toEqual({ locked: true });
    expect(await registrar.setLock({ name: 'lockable.com', locked: false })).toEqual({ locked: false });
    expect(fake.requests.map((r) => `${r.method} ${r.path}`)).toEqual([
      'POST /v2/1010/registrar/domains/lockable.com/transfer_lock',
      'DELETE /v2/1010/registrar/domains/lockable.com/transfer_lock',
    ]);
  });

  it('refuses the auth code while locked, without authorising a transfer out', async () => {
    fake.holdDomain('guarded.com', '2030-01-01T00:00:00Z', { locked: true });
    const err = await rejection(registrar.getAuthCode('guarded.com'));
    expect(err).toBeInstanceOf(DomainLockedError);
    expect(err).toMatchObject({ status: 409, code: 'DOMAIN_LOCKED' });
    expect(fake.requestsTo('POST', '/authorize_transfer_out')).toHaveLength(0);
  });

  it('authorises a transfer out when unlocked: DNSimple e-mails the code', async () => {
    fake.holdDomain('leaving.com');
    expect(await registrar.getAuthCode('leaving.com')).toEqual({ delivery: 'emailed' });
    expect(fake.requestsTo('POST', '/v2/1010/registrar/domains/leaving.com/authorize_transfer_out')).toHaveLength(1);
  });

  it('sets name servers with a bare JSON array', async () => {
    fake.holdDomain('delegated.com');
    expect(await registrar.setNameservers({ name: 'delegated.com', nameservers: ['ns1.example.net', 'ns2.example.net'] })).toEqual({
      nameservers: ['ns1.example.net', 'ns2.example.net'],
    });
    const [req] = fake.requestsTo('PUT', '/v2/1010/registrar/domains/delegated.com/delegation');
    expect(req!.body).toEqual(['ns1.example.net', 'ns2.example.net']);
  });

  it('enables WHOIS privacy with PUT (201 when bought, 200 after) and disables it with DELETE', async () => {
    fake.holdDomain('private.com');
    const path = '/v2/1010/registrar/domains/private.com/whois_privacy';
    // enableWhoisPrivacy/created.http: bought just now, `enabled: null`, read as on.
    expect(await registrar.setWhoisPrivacy({ name: 'private.com', enabled: true })).toEqual({ enabled: true });
    expect(fake.domain('private.com').whoisPrivacy).toBe(true);
    expect(await registrar.setWhoisPrivacy({ name: 'private.com', enabled: false })).toEqual({ enabled: false });
    expect(await registrar.setWhoisPrivacy({ name: 'private.com', enabled: true })).toEqual({ enabled: true });
    expect(fake.requests.map((r) => `${r.method} ${r.path}`)).toEqual([`PUT ${path}`, `DELETE ${path}`, `PUT ${path}`]);
  });

  it('disabling WHOIS privacy that was never bought (404 notfound-whoisprivacy.http) reads the domain: off', async () => {
    fake.holdDomain('plain.com');
    expect(await registrar.setWhoisPrivacy({ name: 'plain.com', enabled: false })).toEqual({ enabled: false });
    expect(fake.requests.map((r) => `${r.method} ${r.path}`)).toEqual([
      'DELETE /v2/1010/registrar/domains/plain.com/whois_privacy',
      'GET /v2/1010/domains/plain.com',
    ]);
    const err = await rejection(registrar.setWhoisPrivacy({ name: 'elsewhere.com', enabled: false }));
    expect(err).toMatchObject({ status: 422, code: 'REGISTRAR_REJECTED', detail: expect.stringContaining('elsewhere.com` not found') });
  });

  it('refuses WHOIS privacy for a TLD without it (400) permanently, and passes 5xx on as transient', async () => {
    fake.holdDomain('nopriv.com', '2030-01-01T00:00:00Z', { whoisPrivacyOffered: false });
    const refused = await rejection(registrar.setWhoisPrivacy({ name: 'nopriv.com', enabled: true }));
    expect(refused).toBeInstanceOf(RegistrarRejectedError);
    expect(refused).toMatchObject({ status: 422, detail: expect.stringContaining('not available') });
    fake.holdDomain('busy.com');
    fake.fail({ method: 'PUT', path: /whois_privacy$/ }, { status: 502, body: BAD_GATEWAY_HTML });
    const down = await rejection(registrar.setWhoisPrivacy({ name: 'busy.com', enabled: true }));
    expect(down).toBeInstanceOf(RegistrarUnavailableError);
    expect(isTransient(down)).toBe(true);
    expect(fake.domain('busy.com').whoisPrivacy).toBe(false);
  });

  it('updates a known contact with PATCH and re-creates one deleted upstream', async () => {
    const id = fake.addContact({ first_name: 'Old', job_title: 'CEO' });
    expect(await registrar.syncContact(registrant, String(id))).toBe(String(id));
    expect(fake.requestsTo('PATCH', `/v2/1010/contacts/${id}`)[0]!.body).toMatchObject({ first_name: 'Ada', country: 'GB' });
    expect(fake.contact(id)).toMatchObject({ first_name: 'Ada' });

    const recreated = await registrar.syncContact(registrant, '999999');
    expect(recreated).not.toBe('999999');
    expect(fake.requests.slice(-2).map((r) => `${r.method} ${r.path}`)).toEqual(['PATCH /v2/1010/contacts/999999', 'POST /v2/1010/contacts']);
  });
});

describe('DNSimple adapter: a paid call is never blindly sent twice', () => {
  it('a registration whose answer came too late reads as unknown, and the next attempt finds it done (registerDomain/success.http took 11.9 s)', async () => {
    fake.fail({ method: 'POST', path: /slow-answer\.com\/registrations$/ }, { delayMs: 600 });
    const hasty = adapter({ paidTimeoutMs: 200 });
    expect(await hasty.register({ name: 'slow-answer.com', years: 1, registrant })).toMatchObject({ state: 'pending', registrarReference: null });
    await pause(100);
    const again = await hasty.register({ name: 'slow-answer.com', years: 1, registrant, resumed: true });
    expect(again).toMatchObject({ state: 'registered', registrarReference: null, expiresAt: expect.stringMatching(/^\d{4}-/) });
    expect(fake.requestsTo('POST', '/slow-answer.com/registrations')).toHaveLength(1);
    expect(fake.charges('slow-answer.com').registrations).toBe(1);
  });

  it('gives paid POSTs their own timeout, longer than reads', async () => {
    fake.fail({ method: 'POST', path: /patient\.com\/registrations$/ }, { delayMs: 300 });
    const result = await adapter({ timeoutMs: 100, paidTimeoutMs: 2_000 }).register({ name: 'patient.com', years: 1, registrant });
    expect(result).toMatchObject({ state: 'pending', registrarReference: expect.stringMatching(/^\d+$/) });
  });

  it('a renewal whose connection dropped is recognised by its expiry and not renewed again', async () => {
    fake.holdDomain('dropped.com', '2030-01-01T00:00:00Z');
    fake.fail({ method: 'POST', path: /dropped\.com\/renewals$/ }, { drop: true });
    const input = { name: 'dropped.com', years: 1, expiresBefore: '2030-01-01T00:00:00Z' };
    expect(await registrar.renew(input)).toEqual({ state: 'pending', registrarReference: null });
    await pause(60);
    expect(await registrar.renew({ ...input, resumed: true })).toEqual({ state: 'renewed', expiresAt: '2031-01-01T00:00:00Z', registrarReference: null });
    expect(fake.requestsTo('POST', '/dropped.com/renewals')).toHaveLength(1);
    expect(fake.charges('dropped.com').renewals).toBe(1);
  });

  it('a 5xx after the transfer was made is unknown; the next attempt finds the domain transferred', async () => {
    fake.fail({ method: 'POST', path: /ambiguous-in\.com\/transfers$/ }, { afterEffect: 502 });
    expect(await registrar.transfer({ name: 'ambiguous-in.com', authCode: 'x', registrant })).toMatchObject({ state: 'transferring', registrarReference: null });
    await pause(100);
    expect(await registrar.transfer({ name: 'ambiguous-in.com', authCode: 'x', registrant, resumed: true })).toMatchObject({ state: 'transferred', registrarReference: null });
    expect(fake.requestsTo('POST', '/ambiguous-in.com/transfers')).toHaveLength(1);
  });

  it('"already in the account" after an unknown outcome stays pending instead of failing', async () => {
    fake.processingMs = 5_000;
    fake.fail({ method: 'POST', path: /in-flight\.com\/registrations$/ }, { afterEffect: 504 });
    expect(await registrar.register({ name: 'in-flight.com', years: 1, registrant })).toMatchObject({ state: 'pending', registrarReference: null });
    expect(await registrar.register({ name: 'in-flight.com', years: 1, registrant, resumed: true })).toMatchObject({ state: 'pending', registrarReference: null });
    expect(fake.requestsTo('POST', '/in-flight.com/registrations')).toHaveLength(2);
    expect(fake.charges('in-flight.com').registrations).toBe(0);
  });

  it('a 503 that did nothing is sent again once the domain shows nothing happened', async () => {
    fake.fail({ method: 'POST', path: /retry-me\.com\/registrations$/ }, { status: 503, body: { message: 'Service Unavailable' } });
    expect(await registrar.register({ name: 'retry-me.com', years: 1, registrant })).toMatchObject({ registrarReference: null });
    expect(await registrar.register({ name: 'retry-me.com', years: 1, registrant, resumed: true })).toMatchObject({ state: 'pending', registrarReference: expect.stringMatching(/^\d+$/) });
    await pause(40);
    expect(fake.charges('retry-me.com').registrations).toBe(1);
  });
});
