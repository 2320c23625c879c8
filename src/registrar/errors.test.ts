import { describe, expect, it } from 'vitest';
import { ApiError, NotFoundError } from '../errors.js';
import {
  DomainLockedError,
  DomainNotAvailableError,
  RegistrarRejectedError,
  RegistrarUnavailableError,
  isTransient,
  retryAfterSeconds,
  withRetryAfter,
} from './errors.js';
import { createLiveRegistrar } from './index.js';
import { centsToDecimal, decimalToCents } from './money.js';

describe('registrar errors', () => {
  it('withRetryAfter gives a transient outage a Retry-After when the registrar named none, and leaves the rest', () => {
    const named = new RegistrarUnavailableError('busy', { retryAfterSeconds: 7 });
    const rejected = new RegistrarRejectedError('no');
    const permanent = new RegistrarUnavailableError('unconfigured', { transient: false });
    expect(withRetryAfter(named, 10)).toBe(named);
    expect(withRetryAfter(rejected, 10)).toBe(rejected);
    expect(withRetryAfter(permanent, 10)).toBe(permanent);
    const filled = withRetryAfter(new RegistrarUnavailableError('down', { upstreamStatus: 502 }), 10) as RegistrarUnavailableError;
    expect(filled).toMatchObject({ status: 503, code: 'UPSTREAM_UNAVAILABLE', detail: 'down', upstreamStatus: 502, headers: { 'Retry-After': '10' } });
    expect(isTransient(filled)).toBe(true);
  });

  it('carry status and stable code as ApiErrors', () => {
    const cases: [ApiError, number, string][] = [
      [new RegistrarUnavailableError('down'), 503, 'UPSTREAM_UNAVAILABLE'],
      [new RegistrarRejectedError('no'), 422, 'REGISTRAR_REJECTED'],
      [new RegistrarRejectedError('conflict', { status: 409 }), 409, 'REGISTRAR_REJECTED'],
      [new DomainLockedError('a.com'), 409, 'DOMAIN_LOCKED'],
      [new DomainNotAvailableError('a.com'), 409, 'DOMAIN_NOT_AVAILABLE'],
    ];
    for (const [err, status, code] of cases) {
      expect(err).toBeInstanceOf(ApiError);
      expect(err.toBody()).toEqual({ detail: err.detail, code });
      expect(err.status).toBe(status);
      expect(err.name).toBe(err.constructor.name);
    }
  });

  it('send Retry-After with an unavailable error that has one', () => {
    const err = new RegistrarUnavailableError('slow down', { retryAfterSeconds: 12 });
    expect(err.headers).toEqual({ 'Retry-After': '12' });
    expect(retryAfterSeconds(err)).toBe(12);
    expect(new RegistrarUnavailableError('down').headers).toEqual({});
  });

  it('classify transient and permanent failures', () => {
    expect(isTransient(new RegistrarUnavailableError('down'))).toBe(true);
    expect(isTransient(new RegistrarUnavailableError('not configured', { transient: false }))).toBe(false);
    expect(isTransient(new RegistrarRejectedError('no'))).toBe(false);
    expect(isTransient(new DomainLockedError('a.com'))).toBe(false);
    expect(isTransient(new NotFoundError())).toBe(false);
    expect(isTransient(new Error('bug'))).toBe(false);
    expect(isTransient('a string')).toBe(false);
    // What fetch throws: a TimeoutError DOMException, or TypeError('fetch failed') with the socket error as cause.
    expect(isTransient(new DOMException('The operation timed out', 'TimeoutError'))).toBe(true);
    const refused = Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:1'), { code: 'ECONNREFUSED' });
    expect(isTransient(new TypeError('fetch failed', { cause: refused }))).toBe(true);
    expect(isTransient(Object.assign(new Error('socket hang up'), { code: 'ECONNRESET' }))).toBe(true);
  });

  it('fail every live call with a permanent 503 when the registrar is not configured', async () => {
    const live = createLiveRegistrar(undefined, { currency: 'USD', tlds: {} });
    const err = await live.checkAvailability('a.com').catch((e: unknown) => e);
    expect(err).toMatchObject({ status: 503, code: 'UPSTREAM_UNAVAILABLE' });
    expect(isTransient(err)).toBe(false);
  });
});

describe('money', () => {
  it('reads DNSimple amounts into integer cents', () => {
    expect(decimalToCents('14.5')).toBe(1450);
    expect(decimalToCents(14.5)).toBe(1450);
    expect(decimalToCents(20.0)).toBe(2000);
    expect(decimalToCents('109.00')).toBe(10900);
    expect(decimalToCents(0.1)).toBe(10);
    expect(decimalToCents(19.99)).toBe(1999);
    expect(decimalToCents(1.005)).toBe(101);
    expect(decimalToCents('7')).toBe(700);
  });

  it('rounds fractions of a cent up, never down', () => {
    expect(decimalToCents('10.001')).toBe(1001);
    expect(decimalToCents('10.0000')).toBe(1000);
  });

  it('refuses what is not a plain non-negative decimal', () => {
    for (const bad of ['', '-1', '1e3', 'abc', '1.2.3', 1e21, -5, Number.NaN]) {
      expect(() => decimalToCents(bad)).toThrow(RangeError);
    }
  });

  it('writes cents as a decimal string', () => {
    expect(centsToDecimal(2000)).toBe('20.00');
    expect(centsToDecimal(1450)).toBe('14.50');
    expect(centsToDecimal(5)).toBe('0.05');
    expect(() => centsToDecimal(1.5)).toThrow(RangeError);
  });
});
