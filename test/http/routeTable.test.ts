import Koa from 'koa';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RouteTable } from '../../src/http/routeTable.js';
import { listen, type ListeningServer } from '../../src/http/listen.js';
import { buildRoutes } from '../../src/routes.js';
import { koaPath } from '../../src/http/route.js';
import { startTestApp } from '../support/testApp.js';
import type { AppState } from '../../src/http/context.js';

/** Each route answers which route it is and the parameters it was given. */
const answering = (name: string) => [
  (ctx: Parameters<Parameters<RouteTable['add']>[2][number]>[0]) => {
    ctx.body = { route: name, params: ctx.params };
  },
];

let server: ListeningServer;
let fellThrough = 0;

beforeAll(async () => {
  const table = new RouteTable();
  table.add('get', '/things/:thing_id', answering('thing'));
  table.add('patch', '/things/:thing_id', answering('edit thing'));
  table.add('get', '/things/special', answering('special'));
  table.add('post', '/things/:thing_id/parts', answering('add part'));
  const app = new Koa<AppState>();
  app.use(table.allowedMethods());
  app.use(table.routes());
  app.use(() => {
    fellThrough += 1;
  });
  server = await listen(app, '127.0.0.1', 0);
});
afterAll(async () => server?.close());

const call = async (path: string, method = 'GET') => {
  const res = await fetch(`${server.url}${path}`, { method });
  const text = await res.text();
  const json = text !== '' && res.headers.get('content-type')?.startsWith('application/json') === true;
  return { status: res.status, allow: res.headers.get('allow'), body: json ? (JSON.parse(text) as unknown) : text };
};

describe('RouteTable', () => {
  it('finds a route whatever the case of its static segments, with or without a trailing slash, keeping the case of parameters', async () => {
    expect((await call('/things/Abc')).body).toEqual({ route: 'thing', params: { thing_id: 'Abc' } });
    expect((await call('/THINGS/Abc/')).body).toEqual({ route: 'thing', params: { thing_id: 'Abc' } });
  });

  it('gives parameters percent-decoded, an encoded slash included', async () => {
    expect((await call('/things/a%2Fb')).body).toEqual({ route: 'thing', params: { thing_id: 'a/b' } });
    expect((await call('/things/caf%C3%A9%20x')).body).toEqual({ route: 'thing', params: { thing_id: 'café x' } });
  });

  it('prefers a static segment to a parameter', async () => {
    expect((await call('/things/special')).body).toEqual({ route: 'special', params: {} });
    expect((await call('/things/special', 'PATCH')).body).toEqual({ route: 'edit thing', params: { thing_id: 'special' } });
  });

  it('answers HEAD from the GET route, OPTIONS and a wrong method with Allow in the order the routes were added, and 501 for a method never served', async () => {
    expect((await call('/things/1', 'HEAD')).status).toBe(200);
    expect(await call('/things/1', 'OPTIONS')).toMatchObject({ status: 200, allow: 'HEAD, GET, PATCH' });
    expect(await call('/things/1', 'DELETE')).toMatchObject({ status: 405, allow: 'HEAD, GET, PATCH' });
    expect(await call('/things/1/parts', 'GET')).toMatchObject({ status: 405, allow: 'POST' });
    expect(await call('/things/1', 'PROPFIND')).toMatchObject({ status: 501, allow: 'HEAD, GET, PATCH' });
  });

  it('passes a request no route serves on to the next middleware, untouched', async () => {
    const before = fellThrough;
    expect(await call('/things')).toMatchObject({ status: 404, allow: null });
    expect(await call('/things/1/parts/2', 'POST')).toMatchObject({ status: 404, allow: null });
    expect(fellThrough).toBe(before + 2);
  });
});

describe("the api's routes", () => {
  it('overlap under one method only where one is the other with statics for parameters, so the more specific answers, whatever the order they were added in', async () => {
    const app = await startTestApp();
    try {
      const routes = buildRoutes(app.deps).map((route) => ({ method: route.method, segments: koaPath(route.path).split('/') }));
      const overlaps: string[] = [];
      routes.forEach((a, i) =>
        routes.slice(i + 1).forEach((b) => {
          if (a.method !== b.method || a.segments.length !== b.segments.length) return;
          const param = (segment: string) => segment.startsWith(':');
          const pairs = a.segments.map((segment, k) => [segment, b.segments[k]!] as const);
          if (!pairs.every(([x, y]) => x === y || param(x) || param(y))) return;
          // `/events/stream` beside `/events/:event_id` is fine (the static one answers); `/a/:x/c` beside `/a/b/:y` is not.
          const aMoreSpecific = pairs.every(([x, y]) => x === y || param(y));
          const bMoreSpecific = pairs.every(([x, y]) => x === y || param(x));
          if (!aMoreSpecific && !bMoreSpecific) overlaps.push(`${a.method} ${a.segments.join('/')} and ${b.segments.join('/')}`);
        }),
      );
      expect(routes.length).toBeGreaterThan(50);
      expect(overlaps).toEqual([]);
      // The one overlap there is today, answered by the more specific route.
      const stream = await app.fetch(`/api/v1/orgs/org_0000000000000000000000/events/stream`, { method: 'OPTIONS' });
      expect(stream.headers.get('allow')).toBe('HEAD, GET');
    } finally {
      await app.close();
    }
  });
});
