import { parseRetryAfterMs, sleep } from './retryAfter.js';

export interface RetryOptions {
  /** Attempts in all, the first included (default 4; 1 turns retries off). */
  maxAttempts?: number;
  /** First back-off for 502, 503 and network failures; doubled per attempt (default 250 ms). */
  baseDelayMs?: number;
  /** Cap of one back-off (default 8 s). */
  maxDelayMs?: number;
  /** A `Retry-After` longer than this is not waited for: the error is returned at once (default 60 s). */
  maxRetryAfterMs?: number;
}

export interface TransportOptions {
  /** A bearer token (an API key or a session JWT), or a function giving the current one. */
  token?: string | (() => string | undefined | Promise<string | undefined>);
  /** `'include'` to send the dashboard's session cookie to another origin. */
  credentials?: 'omit' | 'same-origin' | 'include';
  /** Sent as `X-CSRF-Token` on state-changing calls (the dashboard's cookie sessions need it). */
  csrfToken?: string | (() => string | undefined);
  /** `'test'` sends `X-Mode: test` (a session acting on test-mode objects). */
  mode?: 'live' | 'test';
  /** Replaces `/api/v1` in every path, e.g. `/dashboard/api/v1` behind the dashboard. */
  basePath?: string;
  retry?: RetryOptions;
  /** The fetch to call (default: the global one). */
  fetch?: typeof globalThis.fetch;
}

const API_ROOT = '/api/v1';
const STATE_CHANGING = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);
const RETRIED_STATUSES = new Set([429, 502, 503]);

/** A random idempotency key: `crypto.randomUUID` where it exists (secure contexts), else 16 random bytes. */
export function newIdempotencyKey(): string {
  if (typeof crypto.randomUUID === 'function') return crypto.randomUUID();
  const bytes = crypto.getRandomValues(new Uint8Array(16));
  return Array.from(bytes, (b) => b.toString(16).padStart(2, '0')).join('');
}

/** Back-off with equal jitter: half the exponential step, plus up to as much again at random. */
export function backoffMs(attempt: number, retry: Required<RetryOptions>): number {
  const step = Math.min(retry.maxDelayMs, retry.baseDelayMs * 2 ** (attempt - 1));
  return step / 2 + Math.random() * (step / 2);
}

async function resolveValue(value: string | (() => string | undefined | Promise<string | undefined>) | undefined) {
  return typeof value === 'function' ? await value() : value;
}

/**
 * The fetch the typed client sends through: adds credentials and headers, gives every
 * state-changing request an `Idempotency-Key` (unless the caller set one) before its first attempt so
 * that every retry carries the same key, and retries 429 after `Retry-After` and 502, 503 and network
 * failures with back-off. A retry is safe because the API replays a stored answer for a repeated key.
 */
export function createTransport(options: TransportOptions): (request: Request) => Promise<Response> {
  const send = options.fetch ?? globalThis.fetch.bind(globalThis);
  const retry: Required<RetryOptions> = { maxAttempts: 4, baseDelayMs: 250, maxDelayMs: 8_000, maxRetryAfterMs: 60_000, ...options.retry };

  return async (request) => {
    const method = request.method.toUpperCase();
    const headers = new Headers(request.headers);
    const token = await resolveValue(options.token);
    if (token && !headers.has('authorization')) headers.set('authorization', `Bearer ${token}`);
    if (options.mode === 'test' && !headers.has('x-mode')) headers.set('x-mode', 'test');
    if (STATE_CHANGING.has(method)) {
      if (!headers.has('idempotency-key')) headers.set('idempotency-key', newIdempotencyKey());
      const csrf = typeof options.csrfToken === 'function' ? options.csrfToken() : options.csrfToken;
      if (csrf) headers.set('x-csrf-token', csrf);
    }
    const url = new URL(request.url);
    if (options.basePath && (url.pathname === API_ROOT || url.pathname.startsWith(`${API_ROOT}/`))) {
      url.pathname = options.basePath.replace(/\/$/, '') + url.pathname.slice(API_ROOT.length);
    }
    // Read once, so each attempt sends the same bytes.
    const body = method === 'GET' || method === 'HEAD' ? undefined : await request.arrayBuffer();
    const signal = request.signal;

    for (let attempt = 1; ; attempt++) {
      const init: RequestInit = { method, headers, signal, ...(body ? { body } : {}), ...(options.credentials ? { credentials: options.credentials } : {}) };
      let response: Response;
      try {
        response = await send(url.toString(), init);
      } catch (err) {
        // A network failure (TypeError) is retried; an abort is the caller's decision and is not.
        if (signal.aborted || !(err instanceof TypeError) || attempt >= retry.maxAttempts) throw err;
        await sleep(backoffMs(attempt, retry), signal);
        continue;
      }
      if (!RETRIED_STATUSES.has(response.status) || attempt >= retry.maxAttempts) return response;
      const retryAfter = parseRetryAfterMs(response.headers.get('retry-after'));
      if (retryAfter !== undefined && retryAfter > retry.maxRetryAfterMs) return response;
      await response.body?.cancel();
      await sleep(retryAfter ?? backoffMs(attempt, retry), signal);
    }
  };
}
