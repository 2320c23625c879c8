/**
 * Every route in the route table, sent bodies, queries, path ids and headers generated from its own
 * schemas and then mutated (deep nesting, NUL and control characters, lone surrogates, huge numbers,
 * wrong types, extra and missing fields, empty and huge strings, IDN names), over real HTTP, with and
 * without `Idempotency-Key`. The property: never a 5xx, every error is the spec's `{detail, code}`,
 * and a 4xx writes nothing.
 *
 * Fixed seed; `FUZZ_RUNS` (cases per route, default below) and `FUZZ_SEED` change the run.
 * The routes are dealt to a few files (routes*.test.ts), each with its own app, user and clients,
 * so that vitest runs them side by side: one file took minutes on its own, most of them waiting.
 */
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../support/testApp.js';
import { bearer, createKey, jsonHeaders, uniqueEmail } from '../support/actors.js';
import { insertKey, insertOrg, insertUser, sessionOf, type FactoryUser } from '../support/factories.js';
import { insertActiveDomain } from '../support/domains.js';
import { forwardedFrom, readJson, simulatedClientAddress } from '../support/http.js';
import { createApp } from '../../src/app.js';
import { listen, type ListeningServer } from '../../src/http/listen.js';
import { buildRoutes } from '../../src/routes.js';
import type { RouteSpec } from '../../src/http/route.js';
import { SCOPES } from '../../src/auth/scopes.js';
import { DOMAIN_NAMES, fromZod, mutate, mutation, rawBodyTweak, toWire } from './arbitraries.js';
import { fingerprintOf, ownedTables } from './fingerprint.js';

/** Cases per route with a body; routes without one (path and query only) get a quarter. */
const RUNS = Number(process.env.FUZZ_RUNS ?? 150);
const SEED = Number(process.env.FUZZ_SEED ?? 20_251_123);

/** Registers the fuzz of every `shards`-th route of the route table, starting at `shard` (0-based). */
export function fuzzRoutes(shard: number, shards: number): void {
  let app: TestApp;
  let server: ListeningServer;
  let fixtures: Record<string, string>;
  let fuzzUser: FactoryUser;
  let session: string;
  let testKey: string;
  let fingerprint: () => Promise<string>;

  beforeAll(async () => {
    app = await startTestApp();
    server = await listen(createApp(app.deps), '127.0.0.1', 0);
    // Thousands of requests from one user: its organisation is on the plan with the largest limits,
    // set before its first request (the limiter caches plans for a minute: src/http/rateLimit.ts).
    const email = uniqueEmail('fuzz');
    fuzzUser = await insertUser(app.deps, email);
    const org = await insertOrg(app.deps, { owner: fuzzUser, name: 'Fuzz', plan: 'enterprise' });
    session = await sessionOf(app.deps, fuzzUser);
    const me = await readJson<{ id: string }>(await app.fetch('/api/v1/me', { headers: bearer(session) }));
    const key = await createKey(app, session, { name: 'fuzz', scopes: SCOPES, mode: 'test' });
    testKey = key.key;
    const customer = { org, livemode: false };
    const domain = await insertActiveDomain(app, customer);
    const headers = jsonHeaders(testKey);
    const contact = await readJson<{ id: string }>(
      await app.fetch(`/api/v1/orgs/${org.id}/contacts`, {
        method: 'POST',
        headers,
        body: JSON.stringify({ first_name: 'F', last_name: 'Z', email, phone: '+442071838750', address1: '1 St', city: 'London', postal_code: 'E1 1AA', country: 'GB' }),
      }),
    );
    const record = await readJson<{ id: string }>(
      await app.fetch(`/api/v1/orgs/${org.id}/domains/${domain}/records`, { method: 'POST', headers, body: JSON.stringify({ type: 'TXT', name: 'fuzz', content: 'x' }) }),
    );
    await app.fetch(`/api/v1/orgs/${org.id}/billing/top-ups`, { method: 'POST', headers, body: JSON.stringify({ amount: 100_000 }) });
    fixtures = { org_oid: org.id, domain, contact_id: contact.id, record_id: record.id, key_id: key.id, user_id: me.id, operation_id: 'op_0000000000000000000000', widget_id: 'w' };
    fingerprint = fingerprintOf(app.deps.db, (await ownedTables(app.deps.db)).owned, me.id);
  }, 120_000);

  afterAll(async () => {
    await server?.close(1_000);
    await app?.close();
  });

  /** Path ids: the real fixture mostly, else something hostile. */
  const pathValue = (name: string) =>
    fc.oneof(
      { weight: 6, arbitrary: fc.constant(fixtures[name] ?? 'x') },
      { weight: 1, arbitrary: fc.constantFrom('%00', '..', '%2e%2e', 'a%00b', '%E0%A4%A', `${'x'.repeat(2_000)}`, '%F0%9F%92%A9', '%ED%A0%80', encodeURIComponent(DOMAIN_NAMES[1]!)) },
      { weight: 1, arbitrary: fc.string({ maxLength: 30 }).map(encodeURIComponent) },
    );

  function pathArbitrary(route: RouteSpec): fc.Arbitrary<string> {
    const names = [...route.path.matchAll(/\{([A-Za-z0-9_]+)\}/g)].map((m) => m[1]!);
    if (names.length === 0) return fc.constant(route.path);
    return fc.tuple(...names.map(pathValue)).map((values) => names.reduce((path, name, i) => path.replace(`{${name}}`, values[i]!), route.path));
  }

  function queryArbitrary(route: RouteSpec): fc.Arbitrary<string> {
    const schema = route.request?.query;
    if (!schema) return fc.constant('');
    return fc.tuple(fromZod(schema), fc.array(mutation, { maxLength: 2 }), fc.boolean()).map(([value, mutations, repeat]) => {
      const mutated = mutate(value, mutations);
      if (!mutated || typeof mutated !== 'object' || Array.isArray(mutated)) return '';
      const params = new URLSearchParams();
      for (const [key, v] of Object.entries(mutated)) {
        const text = typeof v === 'string' ? v : toWire(v);
        params.append(key, text);
        if (repeat) params.append(key, text);
      }
      return `?${params.toString()}`;
    });
  }

  function bodyArbitrary(route: RouteSpec): fc.Arbitrary<string | Buffer | undefined> {
    const schema = route.request?.body;
    if (!schema) return fc.constant(undefined);
    return fc.tuple(fromZod(schema), fc.array(mutation, { maxLength: 3 }), rawBodyTweak).map(([value, mutations, raw]) => raw ?? toWire(mutate(value, mutations)));
  }

  interface Headers {
    idempotencyKey: string | undefined;
    ifMatch: string | undefined;
    contentType: string;
  }

  const headerArbitrary: fc.Arbitrary<Headers> = fc.record({
    idempotencyKey: fc.oneof(fc.constant(undefined), fc.uuid(), fc.constantFrom('', ' ', 'k'.repeat(300), 'ké\u00ff')),
    ifMatch: fc.oneof({ weight: 3, arbitrary: fc.constant(undefined) }, { weight: 1, arbitrary: fc.constantFrom('*', '"1"', '"0"', 'W/"1"', '"99999999999"', 'x'.repeat(1_000)) }),
    contentType: fc.oneof({ weight: 8, arbitrary: fc.constant('application/json') }, { weight: 1, arbitrary: fc.constantFrom('text/plain', 'application/json; charset=latin1', 'application/x-www-form-urlencoded') }),
  });

  /**
   * What one route's cases are sent as: a client of its own, as each integration of a customer is in a
   * deployment (its own session, its own all-scopes test key, its own address), so one route's cases
   * spend their own rate-limit pools; all of them are the fuzz user's, whose rows the fingerprint covers.
   */
  interface Client {
    session: string;
    testKey: string;
    address: string;
  }

  async function clientFor(route: RouteSpec): Promise<Client> {
    const { key } = await insertKey(app.deps, { user: fuzzUser, scopes: [...SCOPES], mode: 'test', name: `fuzz ${route.operationId}` });
    const client = { session: await sessionOf(app.deps, fuzzUser), testKey: key, address: simulatedClientAddress() };
    // A key's first request in an organisation records that it was used there (api_key_organizations):
    // made here, as an integration's first call, so that no fuzz case's 4xx is the one writing it.
    const first = await fetch(`${server.url}/api/v1/orgs/${fixtures.org_oid}/billing/balance`, forwardedFrom(client.address, { headers: bearer(key) }));
    expect(first.status).toBe(200);
    return client;
  }

  /** Org and account routes are the session's; the rest run in test mode with the all-scopes test key. */
  const tokenFor = (route: RouteSpec, client: Client) =>
    /^\/api\/v1\/(me|orgs)(\/\{org_oid\}(\/members.*)?)?$/.test(route.path) || route.path.startsWith('/api/v1/me/') ? client.session : client.testKey;

  /** Encoded on the wire as fetch would refuse some of them: header values must stay Latin-1. */
  const latin1 = (value: string) => value.replace(/[^\x20-\x7e\xa0-\xff]/g, '?');

  async function send(route: RouteSpec, client: Client, path: string, query: string, body: string | Buffer | undefined, headers: Headers) {
    const h: Record<string, string> = { ...bearer(tokenFor(route, client)) };
    if (body !== undefined) h['content-type'] = headers.contentType;
    if (headers.idempotencyKey !== undefined) h['idempotency-key'] = latin1(headers.idempotencyKey);
    if (headers.ifMatch !== undefined) h['if-match'] = headers.ifMatch;
    const init = { method: route.method.toUpperCase(), headers: h, ...(body === undefined || route.method === 'get' ? {} : { body }) };
    return honouringRetryAfter(() => fetch(`${server.url}${path}${query}`, forwardedFrom(client.address, init)));
  }

  /**
   * Sends again after a 429's `Retry-After`, as a well-behaved client does: a route's cases may come
   * faster than one client's burst, and each case must reach its route. A refusal is decided before
   * any work, so sending again is safe.
   */
  async function honouringRetryAfter(request: () => Promise<Response>): Promise<Response> {
    for (let attempt = 1; ; attempt += 1) {
      const res = await request();
      const retryAfter = Number(res.headers.get('retry-after'));
      if (res.status !== 429 || attempt === 5 || !(retryAfter > 0)) return res;
      await res.body?.cancel();
      await new Promise((resolve) => setTimeout(resolve, retryAfter * 1_000));
    }
  }

  /** Everything but the documentation and `/readyz`, whose 503 (no worker in this app) is its purpose. */
  const fuzzed = () => buildRoutes(app.deps).filter((route) => !route.path.startsWith('/docs') && route.path !== '/readyz');

  describe(`fuzzing every route (part ${shard + 1} of ${shards})`, () => {
    it('never answers 5xx, always answers errors as {detail, code}, and writes nothing on a 4xx', async () => {
      const everyRoute = fuzzed();
      expect(everyRoute.length).toBeGreaterThan(30);
      const routes = everyRoute.filter((_, index) => index % shards === shard);
      const failures: string[] = [];
      /** Routes that answered 2xx at least once: the generated values are valid often enough to get past validation. */
      const succeeded = new Set<string>();
      for (const route of routes) {
        const client = await clientFor(route);
        const property = fc.asyncProperty(pathArbitrary(route), queryArbitrary(route), bodyArbitrary(route), headerArbitrary, async (path, query, body, headers) => {
          const before = await fingerprint();
          const res = await send(route, client, path, query, body, headers);
          // An event stream that opened stays open: its answer is its status and headers.
          const streaming = res.ok && res.headers.get('content-type')?.startsWith('text/event-stream');
          if (streaming) await res.body?.cancel();
          const text = streaming ? '' : await res.text();
          const where = `${route.method.toUpperCase()} ${path}${query} → ${res.status} ${text.slice(0, 300)}`;
          if (res.status >= 500) throw new Error(`5xx: ${where}`);
          if (res.status < 300) succeeded.add(`${route.method} ${route.path}`);
          if (res.status >= 400) {
            const parsed = JSON.parse(text) as { detail?: unknown; code?: unknown };
            if (typeof parsed.code !== 'string' || parsed.detail === undefined) throw new Error(`error body without {detail, code}: ${where}`);
            const after = await fingerprint();
            if (after !== before) throw new Error(`4xx wrote something: ${where}\nbefore ${before}\nafter  ${after}`);
          }
        });
        const numRuns = route.request?.body ? RUNS : Math.max(1, Math.ceil(RUNS / 4));
        const result = await fc.check(property, { numRuns, seed: SEED, endOnFailure: true });
        if (result.failed) failures.push(`${route.method.toUpperCase()} ${route.path}: ${String(result.errorInstance)}\n  counterexample: ${JSON.stringify(result.counterexample)?.slice(0, 500)}`);
      }
      expect(failures).toEqual([]);
      console.info(`fuzz part ${shard + 1} of ${shards}: ${succeeded.size} of ${routes.length} routes answered 2xx`);
      // Some routes never succeed here (the GitHub webhook needs GitHub's signature; DELETEs consume their
      // fixture once; a live-mode operation needs a registrar), but the generated values must get past
      // validation on at least half of each part's routes (with the default seed: 14, 15 and 19 of 27).
      const neverSucceeded = routes.map((r) => `${r.method} ${r.path}`).filter((r) => !succeeded.has(r));
      expect(succeeded.size, `never answered 2xx:\n${neverSucceeded.join('\n')}`).toBeGreaterThanOrEqual(Math.floor(routes.length / 2));
    }, 600_000);
  });
}
