/**
 * The Browser SDK (client/) against the real api, Temporal worker, PostgreSQL and Redis. Faults and
 * timings are observed through a loopback proxy in front of the api, never by mocking the SDK's fetch.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createClient, ApiError, OperationTimeoutError, isDryRun, realAnswer } from '../../client/src/index.js';
import { startTestApp, sharedWorkflowBundle, type TestApp } from '../support/testApp.js';
import { sessionToken, uniqueEmail } from '../support/actors.js';
import { startRecordingProxy, type RecordedRequest, type RecordingProxy } from '../support/recordingProxy.js';
import { createWorker } from '../../src/worker/worker.js';
import { dnsCustomer, insertActiveDomain } from '../support/domains.js';

let app: TestApp;
let stopWorker: (() => Promise<void>) | undefined;
const proxies: RecordingProxy[] = [];

/** The worker starts late, so that the first test sees an operation stay pending for a while. */
async function startWorker(): Promise<void> {
  if (stopWorker) return;
  const worker = await createWorker(app.deps, sharedWorkflowBundle());
  const run = worker.worker.run();
  stopWorker = async () => {
    worker.worker.shutdown();
    await run;
    await worker.connection.close();
  };
}

async function proxy(options: Parameters<typeof startRecordingProxy>[1] = {}): Promise<RecordingProxy> {
  const started = await startRecordingProxy(app.url, options);
  proxies.push(started);
  return started;
}

/** A signed-in user who, through the SDK, creates an org and a test key, tops up and adds a contact. */
async function testCustomer(balance: number, baseUrl = app.url) {
  const session = createClient({ baseUrl: app.url, token: await sessionToken(app, uniqueEmail('sdk')) });
  const org = await session.createOrganization({ body: { name: 'SDK Co' } });
  const { key } = await session.createApiKey({ body: { name: 'sdk', scopes: ['domains:read', 'domains:write', 'contacts:write', 'billing:read', 'billing:write'], mode: 'test' } });
  const sdk = createClient({ baseUrl, token: key, retry: { baseDelayMs: 50 } });
  if (balance > 0) await sdk.createTopUp({ path: { org_oid: org.id }, body: { amount: balance } });
  const contact = await sdk.createContact({
    path: { org_oid: org.id },
    body: { first_name: 'Ada', last_name: 'Lovelace', email: 'ada@example.com', phone: '+442071838750', address1: '1 High St', city: 'London', postal_code: 'EC1A 1BB', country: 'GB' },
  });
  return { session, sdk, key, orgId: org.id, contactId: contact.id };
}

const uniqueName = (label: string) => `sdk-${label}-${Date.now().toString(36)}${Math.random().toString(36).slice(2, 6)}.com`;
const header = (r: RecordedRequest, name: string) => r.headers[name] as string | undefined;

beforeAll(async () => {
  app = await startTestApp();
});

afterAll(async () => {
  for (const p of proxies) await p.close();
  await stopWorker?.();
  await app?.close();
});

describe('Browser SDK against the real api', () => {
  // First, while no worker runs, so the operation cannot finish under it.
  it('waitForOperation gives up at its timeout, or at once when the caller aborts', async () => {
    const { sdk, orgId, contactId } = await testCustomer(10_000);
    const operation = realAnswer(await sdk.registerDomain({ path: { org_oid: orgId }, body: { name: uniqueName('pending'), registrant_contact_id: contactId } }));

    const timedOut = await sdk.waitForOperation(orgId, operation.id, { timeoutMs: 1_500 }).catch((err: unknown) => err);
    expect(timedOut).toBeInstanceOf(OperationTimeoutError);
    expect(timedOut).toMatchObject({ operationId: operation.id, lastStatus: 'pending' });

    // Aborted while it sleeps until the next poll (test mode answers `Retry-After: 1`). "At once" is
    // an order, not a duration: a timer as long as that sleep, armed just before it (onPoll comes first),
    // has not fired when it rejects; had it slept on, that timer would have fired first.
    const controller = new AbortController();
    const reason = new Error('the user left the page');
    let sleepWouldHaveEnded = false;
    const onPoll = () => {
      setTimeout(() => (sleepWouldHaveEnded = true), 1_000);
      setImmediate(() => controller.abort(reason));
    };
    const waited = sdk.waitForOperation(orgId, operation.id, { signal: controller.signal, onPoll });
    await expect(waited).rejects.toBe(reason);
    expect(sleepWouldHaveEnded).toBe(false);
  });

  it('registers a test-mode domain and waitForOperation follows Retry-After until it succeeded', async () => {
    const operationPolls: RecordedRequest[] = [];
    const recorder = await proxy({
      onRecord: (r) => {
        if (r.method !== 'GET' || !r.path.includes('/operations/')) return;
        operationPolls.push(r);
        // No worker yet: the operation stays pending, so the SDK must poll; after three polls the worker starts.
        if (operationPolls.length === 3) void startWorker();
      },
    });
    const { sdk, orgId, contactId } = await testCustomer(10_000, recorder.url);
    const name = uniqueName('register');

    const operation = realAnswer(await sdk.registerDomain({ path: { org_oid: orgId }, body: { name, years: 1, registrant_contact_id: contactId } }));
    expect(operation).toMatchObject({ type: 'domain.register', domain: name });
    const seen: string[] = [];
    const done = await sdk.waitForOperation(orgId, operation.id, { fallbackIntervalMs: 10, timeoutMs: 25_000, onPoll: (op) => seen.push(op.status) });

    expect(done.status).toBe('succeeded');
    expect(seen.at(-1)).toBe('succeeded');
    expect((await sdk.getDomain({ path: { org_oid: orgId, domain: name } })).status).toBe('active');
    expect(operationPolls.length).toBeGreaterThanOrEqual(4);
    for (let i = 1; i < operationPolls.length; i += 1) {
      const previous = operationPolls[i - 1]!;
      // Every unfinished answer said Retry-After: 1; the SDK waited that, not its 10 ms fallback.
      expect(previous.retryAfter).toBe('1');
      expect(operationPolls[i]!.at - previous.at).toBeGreaterThanOrEqual(950);
    }
  });

  it('exposes the spending guards: a dry run with its price, and max_price refused as an ApiError', async () => {
    const { sdk, orgId, contactId } = await testCustomer(10_000);
    const body = { name: uniqueName('guarded'), registrant_contact_id: contactId };
    const quote = await sdk.registerDomain({ path: { org_oid: orgId }, header: { 'dry-run': 'true' }, body });
    expect(isDryRun(quote) && quote).toEqual({ dry_run: true, price: { amount: 1299, currency: 'USD' }, available_after: 10_000 - 1299 });
    const capped = await sdk.registerDomain({ path: { org_oid: orgId }, body: { ...body, max_price: 1000 } }).catch((err: unknown) => err);
    expect(capped).toMatchObject({ status: 409, code: 'PRICE_EXCEEDS_MAX' });
    const real = realAnswer(await sdk.registerDomain({ path: { org_oid: orgId }, body: { ...body, max_price: 1299 } }));
    expect(real).toMatchObject({ type: 'domain.register', domain: body.name });
  });

  it('turns a 402 into an ApiError with status, code INSUFFICIENT_FUNDS and detail', async () => {
    await startWorker();
    const { sdk, orgId, contactId } = await testCustomer(0);
    const error = await sdk
      .registerDomain({ path: { org_oid: orgId }, body: { name: uniqueName('poor'), registrant_contact_id: contactId } })
      .catch((err: unknown) => err);
    expect(error).toBeInstanceOf(ApiError);
    expect(error).toMatchObject({ status: 402, code: 'INSUFFICIENT_FUNDS' });
    expect((error as ApiError).detail).toMatch(/Insufficient funds/);
    expect((error as ApiError).requestId).toBeTruthy();
  });

  it('retries a 503 with the same Idempotency-Key (the domain is charged once) and a 502 read', async () => {
    await startWorker();
    const failed = new Set<string>();
    const flaky = await proxy({
      // The first register answers 503 and the first balance read 502, as a load balancer might.
      fault: ({ method, path }) => {
        const target = method === 'POST' && /\/domains$/.test(path) ? 'register' : method === 'GET' && path.endsWith('/billing/balance') ? 'balance' : undefined;
        if (!target || failed.has(target)) return undefined;
        failed.add(target);
        return target === 'register' ? 503 : 502;
      },
    });
    const { sdk, orgId, contactId } = await testCustomer(10_000, flaky.url);
    const name = uniqueName('retry');

    const operation = realAnswer(await sdk.registerDomain({ path: { org_oid: orgId }, body: { name, years: 1, registrant_contact_id: contactId } }));
    await sdk.waitForOperation(orgId, operation.id, { timeoutMs: 20_000 });

    const attempts = flaky.requests.filter((r) => r.method === 'POST' && r.path.endsWith('/domains'));
    expect(attempts.map((r) => r.status)).toEqual([503, 202]);
    const keys = attempts.map((r) => header(r, 'idempotency-key'));
    expect(keys[0]).toMatch(/^[\w-]{16,}$/);
    expect(keys[1]).toBe(keys[0]);
    expect(await sdk.getBalance({ path: { org_oid: orgId } })).toMatchObject({ reserved: 0 });
    expect(flaky.requests.filter((r) => r.path.endsWith('/billing/balance')).map((r) => r.status)).toEqual([502, 200]);
    const transactions = await sdk.listTransactions({ path: { org_oid: orgId } });
    expect(transactions.data.filter((t) => t.type === 'capture')).toHaveLength(1);
  });

  it('keeps a key the caller chose, and gives each new call a fresh one', async () => {
    const recorder = await proxy();
    const { sdk, orgId } = await testCustomer(0, recorder.url);
    await sdk.createTopUp({ path: { org_oid: orgId }, body: { amount: 100 } }, { idempotencyKey: 'caller-chosen-1' });
    const replay = await sdk.createTopUp({ path: { org_oid: orgId }, body: { amount: 100 } }, { idempotencyKey: 'caller-chosen-1' });
    await sdk.createTopUp({ path: { org_oid: orgId }, body: { amount: 100 } });
    await sdk.createTopUp({ path: { org_oid: orgId }, body: { amount: 100 } });

    const topUps = recorder.requests.filter((r) => r.method === 'POST' && r.path.endsWith('/top-ups'));
    expect(topUps.slice(0, 2).map((r) => header(r, 'idempotency-key'))).toEqual(['caller-chosen-1', 'caller-chosen-1']);
    expect(header(topUps[2]!, 'idempotency-key')).not.toBe(header(topUps[3]!, 'idempotency-key'));
    expect(replay.amount).toBe(100);
    // GETs carry no key: they are safe to repeat as they are.
    expect(recorder.requests.filter((r) => r.method === 'GET').every((r) => header(r, 'idempotency-key') === undefined)).toBe(true);
    expect((await sdk.getBalance({ path: { org_oid: orgId } })).available).toBe(300);
  });

  it('waits out a real 429 for Retry-After and retries with the same key', async () => {
    const recorder = await proxy();
    const { key } = await testCustomer(0);
    const noRetry = createClient({ baseUrl: app.url, token: key, retry: { maxAttempts: 1 } });
    // Spend the bulk group's per-second burst until the api refuses (bounded: the burst is 2).
    let refused: ApiError | undefined;
    for (let i = 0; i < 10 && !refused; i += 1) {
      refused = await noRetry.checkAvailabilityBulk({ body: { names: ['a-sdk.com'] } }).then(
        () => undefined,
        (err: unknown) => err as ApiError,
      );
    }
    expect(refused).toMatchObject({ status: 429, code: 'RATE_LIMITED' });
    expect(refused?.retryAfterSeconds).toBeGreaterThanOrEqual(1);

    const sdk = createClient({ baseUrl: recorder.url, token: key });
    const answer = await sdk.checkAvailabilityBulk({ body: { names: ['b-sdk.com'] } });
    expect(answer.results).toHaveLength(1);
    const [first, second, ...rest] = recorder.requests.filter((r) => r.path.endsWith('/availability/bulk'));
    expect(rest).toHaveLength(0);
    expect(first?.status).toBe(429);
    expect(second?.status).toBe(200);
    expect(header(second!, 'idempotency-key')).toBe(header(first!, 'idempotency-key'));
    expect(second!.at - first!.at).toBeGreaterThanOrEqual(Number(first!.retryAfter) * 1000 - 50);
  });

  it('sends X-Mode: test, the CSRF token on writes only, under another base path', async () => {
    const recorder = await proxy({ rewritePath: (path) => path.replace(/^\/dashboard\/api\/v1\//, '/api/v1/') });
    const token = await sessionToken(app, uniqueEmail('sdk-session'));
    const live = createClient({ baseUrl: app.url, token });
    const org = await live.createOrganization({ body: { name: 'Both modes' } });
    const test = createClient({ baseUrl: recorder.url, basePath: '/dashboard/api/v1', credentials: 'include', token, mode: 'test', csrfToken: 'csrf-123' });

    // What the api then does with X-Mode for a session is the api's own test; here: the SDK sends it.
    await test.createTopUp({ path: { org_oid: org.id }, body: { amount: 700 } });
    expect(await test.getBalance({ path: { org_oid: org.id } })).toMatchObject({ available: 700 });

    expect(recorder.requests.map((r) => `${r.method} ${r.path}`)).toEqual([
      `POST /dashboard/api/v1/orgs/${org.id}/billing/top-ups`,
      `GET /dashboard/api/v1/orgs/${org.id}/billing/balance`,
    ]);
    expect(recorder.requests.map((r) => header(r, 'x-mode'))).toEqual(['test', 'test']);
    expect(recorder.requests.map((r) => header(r, 'x-csrf-token'))).toEqual(['csrf-123', undefined]);
  });
});

describe('Browser SDK: zone files', () => {
  it('sends a zone file as text/dns and answers the export as text', async () => {
    const c = await dnsCustomer(app, 'test');
    const domain = await insertActiveDomain(app, c);
    const sdk = createClient({ baseUrl: app.url, token: c.key });
    const path = { org_oid: c.org.id, domain };
    const result = await sdk.importZoneFile({ path, body: '$TTL 300\nwww A 192.0.2.1 ; web\n' });
    expect(result.create).toEqual([expect.objectContaining({ line: 2, name: 'www', content: '192.0.2.1', ttl: 300 })]);
    const text = await sdk.exportZoneFile({ path });
    expect(text).toContain('www 300 IN A 192.0.2.1\n');
    const refused = await sdk.importZoneFile({ path, body: 'www A 192.0.2.1' }).catch((err: unknown) => err);
    expect(refused).toBeInstanceOf(ApiError);
    expect((refused as ApiError).code).toBe('ZONE_FILE_INVALID');
  });
});

describe('generated types', () => {
  it('client/src matches what the api serves at /api/v1/openapi.json (else run npm run client:generate)', async () => {
    // Fetched before the renderer is loaded: loading it can hold this process's event loop for seconds
    // on a busy machine, past the server's keep-alive, and fetch would then reuse a connection it closed.
    const served = (await (await app.fetch('/api/v1/openapi.json')).json()) as object;
    const { readFile } = await import('node:fs/promises');
    const { renderGeneratedFiles } = await import('../../client/scripts/render.js');
    const expected = await renderGeneratedFiles(served);
    for (const [name, text] of Object.entries(expected)) {
      const committed = await readFile(new URL(`../../client/src/${name}`, import.meta.url), 'utf8');
      expect(committed, `client/src/${name} is stale: run npm run client:generate`).toBe(text);
    }
  });
});

