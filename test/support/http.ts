import { randomInt } from 'node:crypto';
import type { FieldError } from '../../src/errors.js';

/** Error bodies as tests read them: a message, or field errors for 400 and 422. */
export interface MessageErrorBody {
  code: string;
  detail: string;
}
export interface FieldErrorBody {
  code: string;
  detail: FieldError[];
}

export async function readJson<T>(res: Response): Promise<T> {
  return (await res.json()) as T;
}

/**
 * An address for one simulated client, sent as `X-Forwarded-For` to a test app that trusts loopback
 * as its proxy (test/support/testApp.ts), so its per-address pools are its own whatever else runs on
 * this machine. Drawn from 3fff::/20, the IPv6 documentation prefix no test's own addresses use: it
 * is only a header value, never a network target.
 */
export function simulatedClientAddress(): string {
  const group = () => randomInt(0, 0x10000).toString(16);
  return `3fff:${randomInt(0, 0x1000).toString(16)}:${group()}:${group()}::${group()}`;
}

/** `init` with `X-Forwarded-For: address` added, unless the caller already names one. */
export function forwardedFrom(address: string, init: RequestInit = {}): RequestInit {
  const headers = new Headers(init.headers);
  if (!headers.has('x-forwarded-for')) headers.set('x-forwarded-for', address);
  return { ...init, headers };
}
