import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { randomBase62 } from '../ids.js';
import { InMemoryAttemptCounter, RedisAttemptCounter, type AttemptCounter } from './attemptCounter.js';
import { DomainLockedError, DomainNotAvailableError, RegistrarRejectedError, RegistrarUnavailableError, isTransient } from './errors.js';
import type { ContactDetails, PriceTable } from './port.js';
import { SyntheticRegistrar, syntheticBehaviour } from './synthetic.js';

const prices: PriceTable = {
  currency: 'USD',
  tlds: {
    com: { register: 1200, renew: 1400, transfer: 1100 },
    'co.uk': { register: 900, renew: 900, transfer: 900 },
  },
};
const NOW = new Date('2025-03-01T12:00:00.000Z');
const registrant: ContactDetails = {
  first_name: 'Ada',
  last_name: 'Lovelace',
  email: 'ada@example.com',
  phone: '+442071234567',
  address1: '12 St James Square',
  city: 'London',
  postal_code: 'SW1Y 4JH',
  country: 'GB',
};

function synthetic(attempts: AttemptCounter = new InMemoryAttemptCounter()): SyntheticRegistrar {
  return new SyntheticRegistrar({ prices, attempts, now: () => NOW });
}

/** Unique per run, so repeated runs and parallel files never share a -flaky count. */
function flakyName(): string {
  return `t${randomBase62(10).toLowerCase()}-flaky.com`;
}

async function rejection(promise: Promise<unknown>): Promise<unknown> {
  return promise.then(
    () => expect.fail('expected a rejection'),
    (err: unknown) => err,
  );
}

describe('synthetic registrar: availability', () => {
  const registrar = synthetic();

  it('offers an ordinary name at the table price', async () => {
    expect(await registrar.checkAvailability('Example.COM.')).toEqual({
      name: 'example.com',
      available: true,
      premium: false,
      price: { amount: 1200, currency: 'USD' },
    });
  });

  it('answers -taken as unavailable', async () => {
    expect(await registrar.checkAvailability('shop-taken.com')).toEqual({ name: 'shop-taken.com', available: false, premium: false, price: null });
  });

  it('prices -premium at ten times the table price', async () => {
    expect(await registrar.checkAvailability('gold-premium.co.uk')).toEqual({
      name: 'gold-premium.co.uk',
      available: true,
      premium: true,
      price: { amount: 9000, currency: 'USD' },
    });
  });

  it('reads the suffix on the first label only', async () => {
    expect(syntheticBehaviour('www.shop-taken.com')).toBeUndefined();
    expect(syntheticBehaviour('shop-taken.example.com')).toBe('taken');
    expect((await registrar.checkAvailability('www.shop-taken.com')).available).toBe(true);
    expect(syntheticBehaviour('taken.com')).toBeUndefined();
  });

  it('marks TLDs missing from the price table as unsupported', async () => {
    expect(await registrar.checkAvailability('example.pizza')).toEqual({
      name: 'example.pizza',
      available: false,
      premium: false,
      price: null,
      reason: 'unsupported_tld',
    });
  });
});

describe('synthetic registrar: register', () => {
  const registrar = synthetic();

  it('registers immediately, expiring `years` after now', async () => {
    const result = await registrar.register({ name: 'example.com', years: 3, registrant, nameservers: ['ns1.example.net'] });
    expect(result).toMatchObject({ state: 'registered', expiresAt: '2028-03-01T12:00:00.000Z', nameserversApplied: true });
    expect(result.registrantRegistrarId).toMatch(/^synthetic-contact-/);
    expect(await registrar.registrationStatus({ name: 'example.com', registrarReference: result.registrarReference })).toEqual({
      state: 'registered',
      expiresAt: '2028-03-01T12:00:00.000Z',
    });
  });

  it('is deterministic', async () => {
    const a = await registrar.register({ name: 'same.com', years: 1, registrant });
    const b = await synthetic().register({ name: 'same.com', years: 1, registrant });
    expect(a).toEqual(b);
  });

  it('refuses -taken names with DOMAIN_NOT_AVAILABLE', async () => {
    const err = await rejection(registrar.register({ name: 'shop-taken.com', years: 1, registrant }));
    expect(err).toBeInstanceOf(DomainNotAvailableError);
    expect(err).toMatchObject({ status: 409, code: 'DOMAIN_NOT_AVAILABLE' });
    expect(isTransient(err)).toBe(false);
  });

  it('fails -fail names permanently with REGISTRAR_REJECTED', async () => {
    const err = await rejection(registrar.register({ name: 'doomed-fail.com', years: 1, registrant }));
    expect(err).toBeInstanceOf(RegistrarRejectedError);
    expect(err).toMatchObject({ status: 422, code: 'REGISTRAR_REJECTED' });
    expect(isTransient(err)).toBe(false);
  });

  it('needs the quoted price confirmed for -premium names', async () => {
    const name = 'gold-premium.com';
    expect(await rejection(registrar.register({ name, years: 1, registrant }))).toBeInstanceOf(RegistrarRejectedError);
    expect(await rejection(registrar.register({ name, years: 1, registrant, premiumPrice: { amount: 1200, currency: 'USD' } }))).toBeInstanceOf(
      RegistrarRejectedError,
    );
    const quote = await registrar.checkAvailability(name);
    const result = await registrar.register({ name, years: 1, registrant, premiumPrice: quote.price! });
    expect(result.state).toBe('registered');
  });

  it('refuses TLDs it does not price', async () => {
    expect(await rejection(registrar.register({ name: 'example.pizza', years: 1, registrant }))).toBeInstanceOf(RegistrarRejectedError);
  });
});

describe('synthetic registrar: transfer, renew, lock, auth code', () => {
  const registrar = synthetic();

  it('submits a transfer that completes on the first status call', async () => {
    const submitted = await registrar.transfer({ name: 'moving.com', authCode: 'abc-123', registrant });
    expect(submitted.state).toBe('transferring');
    const status = await registrar.transferStatus({ name: 'moving.com', registrarReference: submitted.registrarReference });
    expect(status).toEqual({ state: 'completed', expiresAt: '2026-03-01T12:00:00.000Z' });
  });

  it('cancels a transfer', async () => {
    const submitted = await registrar.transfer({ name: 'moving.com', authCode: 'abc-123', registrant });
    expect(await registrar.cancelTransfer({ name: 'moving.com', registrarReference: submitted.registrarReference })).toMatchObject({
      state: 'cancelled',
    });
  });

  it('fails transfers of -locked names with DOMAIN_LOCKED', async () => {
    const err = await rejection(registrar.transfer({ name: 'vault-locked.com', authCode: 'abc', registrant }));
    expect(err).toBeInstanceOf(DomainLockedError);
    expect(err).toMatchObject({ status: 409, code: 'DOMAIN_LOCKED' });
    expect(isTransient(err)).toBe(false);
  });

  it('fails transfers of -fail names with REGISTRAR_REJECTED', async () => {
    const err = await rejection(registrar.transfer({ name: 'doomed-fail.com', authCode: 'abc', registrant }));
    expect(err).toMatchObject({ code: 'REGISTRAR_REJECTED' });
  });

  it('refuses the auth code of -locked names and returns one for others', async () => {
    expect(await rejection(registrar.getAuthCode('vault-locked.com'))).toBeInstanceOf(DomainLockedError);
    const code = await registrar.getAuthCode('example.com');
    expect(code).toEqual({ delivery: 'returned', authCode: expect.stringMatching(/^SYN-[\w-]{16}$/) });
    expect(await registrar.getAuthCode('example.com')).toEqual(code);
  });

  it('keeps a registry lock: -locked names cannot be unlocked', async () => {
    expect(await registrar.setLock({ name: 'example.com', locked: false })).toEqual({ locked: false });
    expect(await registrar.setLock({ name: 'vault-locked.com', locked: true })).toEqual({ locked: true });
    expect(await rejection(registrar.setLock({ name: 'vault-locked.com', locked: false }))).toBeInstanceOf(DomainLockedError);
  });

  it('turns WHOIS privacy on and off as asked; -flaky names answer 503 twice first', async () => {
    expect(await registrar.setWhoisPrivacy({ name: 'example.com', enabled: true })).toEqual({ enabled: true });
    expect(await registrar.setWhoisPrivacy({ name: 'example.co.uk', enabled: false })).toEqual({ enabled: false });
    expect(await rejection(registrar.setWhoisPrivacy({ name: 'example.org', enabled: true }))).toBeInstanceOf(RegistrarRejectedError);
    const flaky = synthetic();
    const name = flakyName();
    for (let i = 0; i < 2; i++) expect(await rejection(flaky.setWhoisPrivacy({ name, enabled: true }))).toBeInstanceOf(RegistrarUnavailableError);
    expect(await flaky.setWhoisPrivacy({ name, enabled: true })).toEqual({ enabled: true });
  });

  it('renews from the current expiry, or from now when it has passed', async () => {
    expect(await registrar.renew({ name: 'example.com', years: 2, currentExpiresAt: '2025-09-01T00:00:00.000Z' })).toMatchObject({
      state: 'renewed',
      expiresAt: '2027-09-01T00:00:00.000Z',
    });
    expect(await registrar.renew({ name: 'example.com', years: 1, currentExpiresAt: '2020-01-01T00:00:00.000Z' })).toMatchObject({
      expiresAt: '2026-03-01T12:00:00.000Z',
    });
  });

  it('keeps an upstream contact id it is given', async () => {
    expect(await registrar.syncContact(registrant, '42')).toBe('42');
    expect(await registrar.syncContact(registrant)).toBe(await synthetic().syncContact({ ...registrant }));
  });
});

/** The -flaky contract, run against each AttemptCounter. `second` is another "process" sharing the count. */
function flakyBehaviour(counters: () => { first: AttemptCounter; second: AttemptCounter }) {
  it('answers 503 twice per operation and name, then succeeds', async () => {
    const { first, second } = counters();
    const a = synthetic(first);
    const b = synthetic(second);
    const name = flakyName();

    const firstErr = await rejection(a.register({ name, years: 1, registrant }));
    expect(firstErr).toBeInstanceOf(RegistrarUnavailableError);
    expect(firstErr).toMatchObject({ status: 503, code: 'UPSTREAM_UNAVAILABLE' });
    expect(isTransient(firstErr)).toBe(true);
    // The retry lands on another worker: it still counts as the second attempt.
    expect(await rejection(b.register({ name, years: 1, registrant }))).toBeInstanceOf(RegistrarUnavailableError);
    expect((await a.register({ name, years: 1, registrant })).state).toBe('registered');
    expect((await b.register({ name, years: 1, registrant })).state).toBe('registered');

    // Another operation on the same name has its own count...
    expect(await rejection(b.renew({ name, years: 1 }))).toBeInstanceOf(RegistrarUnavailableError);
    expect(await rejection(a.renew({ name, years: 1 }))).toBeInstanceOf(RegistrarUnavailableError);
    expect((await a.renew({ name, years: 1 })).state).toBe('renewed');
    // ...and so does the same operation on another name.
    expect(await rejection(a.register({ name: flakyName(), years: 1, registrant }))).toBeInstanceOf(RegistrarUnavailableError);
  });

  it('does not make availability checks flaky', async () => {
    const { first } = counters();
    expect((await synthetic(first).checkAvailability(flakyName())).available).toBe(true);
  });
}

describe('synthetic registrar: -flaky with the in-memory counter', () => {
  const shared = new InMemoryAttemptCounter();
  flakyBehaviour(() => ({ first: shared, second: shared }));

  it('forgets counts after the TTL', async () => {
    let now = 0;
    const counter = new InMemoryAttemptCounter(10, () => now);
    expect(await counter.increment('k')).toBe(1);
    expect(await counter.increment('k')).toBe(2);
    now = 10_001;
    expect(await counter.increment('k')).toBe(1);
  });
});

describe('synthetic registrar: -flaky with the Redis counter', () => {
  const prefix = `test:registrar:attempts:${randomBase62(8)}:`;
  let redisA: Redis;
  let redisB: Redis;

  beforeAll(() => {
    // Two connections stand for two worker processes.
    redisA = new Redis(inject('redisUrl'), { maxRetriesPerRequest: 1 });
    redisB = new Redis(inject('redisUrl'), { maxRetriesPerRequest: 1 });
  });

  afterAll(async () => {
    const keys = await redisA.keys(`${prefix}*`);
    if (keys.length > 0) await redisA.del(...keys);
    redisA.disconnect();
    redisB.disconnect();
  });

  flakyBehaviour(() => ({ first: new RedisAttemptCounter(redisA, { prefix }), second: new RedisAttemptCounter(redisB, { prefix }) }));

  it('counts with INCR and sets an EXPIRE on the key', async () => {
    const counter = new RedisAttemptCounter(redisA, { prefix, ttlSeconds: 120 });
    const key = `register:${flakyName()}`;
    expect(await counter.increment(key)).toBe(1);
    expect(await counter.increment(key)).toBe(2);
    expect(await redisB.get(`${prefix}${key}`)).toBe('2');
    const ttl = await redisB.ttl(`${prefix}${key}`);
    expect(ttl).toBeGreaterThan(100);
    expect(ttl).toBeLessThanOrEqual(120);
  });

  it('turns a Redis outage into a transient registrar error', async () => {
    const dead = new Redis('redis://127.0.0.1:1', { lazyConnect: true, enableOfflineQueue: false, maxRetriesPerRequest: 0, retryStrategy: () => null });
    dead.on('error', () => {});
    const err = await rejection(synthetic(new RedisAttemptCounter(dead, { prefix })).register({ name: flakyName(), years: 1, registrant }));
    expect(err).toBeInstanceOf(RegistrarUnavailableError);
    expect(isTransient(err)).toBe(true);
    dead.disconnect();
  });
});
