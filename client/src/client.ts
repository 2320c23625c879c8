import createFetchClient, { type Client } from 'openapi-fetch';
import type { operations, paths } from './schema.js';
import { operationRoutes, streamingOperations, textBodies } from './operations.js';
import { ApiError } from './errors.js';
import { createTransport, type TransportOptions } from './transport.js';
import { waitForOperation, type WaitOptions, type Operation } from './waitForOperation.js';

export interface ClientOptions extends TransportOptions {
  /** Origin of the API, e.g. `https://api.example.com`; in a browser, empty means the page's own origin. */
  baseUrl?: string;
  /** Headers sent with every request. */
  headers?: Record<string, string>;
}

/** Per call: an abort signal, an idempotency key of the caller's choosing, extra headers. */
export interface CallOptions {
  signal?: AbortSignal;
  idempotencyKey?: string;
  headers?: Record<string, string>;
}

type OperationId = keyof operations;
type JsonOf<T> = T extends { content: { 'application/json': infer B } } ? B : T extends { content: Record<string, infer B> } ? B : undefined;
type RequestBody<Op> = Op extends { requestBody: infer R } ? { body: JsonOf<R> } : Op extends { requestBody?: infer R } ? { body?: JsonOf<NonNullable<R>> } : { body?: never };
type Parameters_<Op> = Op extends { parameters: infer P } ? Omit<P, 'cookie'> : object;

/** What an operation takes: its `path`, `query` and `header` parameters and its `body`, as the document types them. */
export type OperationInput<K extends OperationId> = Parameters_<operations[K]> & RequestBody<operations[K]>;
type OkStatus = 200 | 201 | 202 | 203 | 204 | 206;
/** What an operation answers on success (a union when it has several success statuses; undefined for 204). */
export type OperationResult<K extends OperationId> = operations[K] extends { responses: infer R }
  ? { [S in keyof R & OkStatus]: JsonOf<R[S]> }[keyof R & OkStatus]
  : never;
type OperationArgs<K extends OperationId> = object extends OperationInput<K>
  ? [input?: OperationInput<K>, options?: CallOptions]
  : [input: OperationInput<K>, options?: CallOptions];

type StreamingOperation = (typeof streamingOperations)[number];

/**
 * One function per operation of the API, named by its `operationId`. A streaming operation (Server-Sent
 * Events) answers its body as it arrives: read it with the `signal` to stop.
 */
export type Operations = {
  [K in OperationId]: (...args: OperationArgs<K>) => Promise<K extends StreamingOperation ? ReadableStream<Uint8Array> : OperationResult<K>>;
};

const STREAMING: ReadonlySet<OperationId> = new Set(streamingOperations);

export type DomainClient = Operations & {
  /** The typed openapi-fetch client underneath, for path-based calls; same headers, retries and keys. */
  raw: Client<paths>;
  /** Polls the operation, following `Retry-After`, until it is succeeded, failed or cancelled. */
  waitForOperation(orgId: string, operationId: string, options?: WaitOptions): Promise<Operation>;
};

/**
 * The Browser SDK: works in browsers and Node 20 with only fetch, AbortController and crypto.
 * Every non-2xx answer (after retries) is thrown as an ApiError.
 */
export function createClient(options: ClientOptions = {}): DomainClient {
  const raw = createFetchClient<paths>({
    baseUrl: options.baseUrl ?? '',
    fetch: createTransport(options),
    ...(options.headers ? { headers: options.headers } : {}),
  });

  async function call(id: OperationId, input: Record<string, unknown> = {}, callOptions: CallOptions = {}): Promise<unknown> {
    const [method, path] = operationRoutes[id];
    const { body, path: pathParams, query, header } = input as { body?: unknown; path?: object; query?: object; header?: Record<string, string> };
    const text = textBodies[id];
    const headers = {
      ...(text?.request ? { 'content-type': text.request } : {}),
      ...header,
      ...callOptions.headers,
      ...(callOptions.idempotencyKey ? { 'idempotency-key': callOptions.idempotencyKey } : {}),
    };
    // The route table is generated, so the method and path always exist; openapi-fetch's own
    // per-path typing is what the Operations type above restates per operationId.
    const { data, error, response } = await raw.request(method as never, path as never, {
      params: { path: pathParams, query },
      headers,
      ...(body !== undefined ? { body } : {}),
      // A text body (a zone file) goes as it is, and a text answer is returned as a string.
      ...(text?.request ? { bodySerializer: (value: unknown) => value } : {}),
      ...(STREAMING.has(id) ? { parseAs: 'stream' } : text?.response ? { parseAs: 'text' } : {}),
      ...(callOptions.signal ? { signal: callOptions.signal } : {}),
    } as never);
    if (!response.ok) throw ApiError.fromResponse(response, error);
    return data;
  }

  const operations = Object.fromEntries(
    (Object.keys(operationRoutes) as OperationId[]).map((id) => [id, (input?: Record<string, unknown>, callOptions?: CallOptions) => call(id, input, callOptions)]),
  ) as unknown as Operations;

  const client: DomainClient = {
    ...operations,
    raw,
    waitForOperation: (orgId, operationId, waitOptions) => waitForOperation(raw, orgId, operationId, waitOptions),
  };
  return client;
}
