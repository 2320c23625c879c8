import type { Client } from 'openapi-fetch';
import type { components, paths } from './schema.js';
import { ApiError, OperationTimeoutError } from './errors.js';
import { parseRetryAfterMs, sleep } from './retryAfter.js';

export type Operation = components['schemas']['Operation'];

export interface WaitOptions {
  /** Give up after this long with OperationTimeoutError (default 5 minutes). */
  timeoutMs?: number;
  /** Stops waiting at once, rejecting with the signal's reason. */
  signal?: AbortSignal;
  /** Wait between polls when the API sends no `Retry-After` (default 1 s). */
  fallbackIntervalMs?: number;
  /** Called with each state seen, for a progress display. */
  onPoll?: (operation: Operation) => void;
}

const TERMINAL = new Set<Operation['status']>(['succeeded', 'failed', 'cancelled']);

/**
 * Reads the operation until it is terminal, waiting as long as each answer's `Retry-After` says
 * (the API sets it on unfinished operations). Answers the final operation whatever its status:
 * `failed` carries its `error`. An API error while polling is thrown as ApiError.
 */
export async function waitForOperation(client: Client<paths>, orgId: string, operationId: string, options: WaitOptions = {}): Promise<Operation> {
  const timeoutMs = options.timeoutMs ?? 300_000;
  const deadline = Date.now() + timeoutMs;
  const timeout = new AbortController();
  const timer = setTimeout(() => timeout.abort(), timeoutMs);
  const onAbort = () => timeout.abort(options.signal?.reason);
  options.signal?.addEventListener('abort', onAbort, { once: true });
  let last: Operation | undefined;
  try {
    for (;;) {
      const { data, error, response } = await client.GET('/api/v1/orgs/{org_oid}/operations/{operation_id}', {
        params: { path: { org_oid: orgId, operation_id: operationId } },
        signal: timeout.signal,
      });
      if (!data) throw ApiError.fromResponse(response, error);
      last = data;
      options.onPoll?.(data);
      if (TERMINAL.has(data.status)) return data;
      const wait = parseRetryAfterMs(response.headers.get('retry-after')) ?? options.fallbackIntervalMs ?? 1_000;
      if (Date.now() + wait > deadline) throw new OperationTimeoutError(operationId, last.status, timeoutMs);
      await sleep(wait, timeout.signal);
    }
  } catch (err) {
    options.signal?.throwIfAborted();
    if (timeout.signal.aborted && !(err instanceof OperationTimeoutError)) throw new OperationTimeoutError(operationId, last?.status, timeoutMs);
    throw err;
  } finally {
    clearTimeout(timer);
    options.signal?.removeEventListener('abort', onAbort);
  }
}
