import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { defineRoute } from '../../src/http/route.js';
import { withTransaction } from '../../src/db/pool.js';
import { startTestApp, type TestApp } from '../support/testApp.js';
import { readJson, type FieldErrorBody, type MessageErrorBody } from '../support/http.js';

const echoRoute = defineRoute({
  method: 'post',
  path: '/test/echo/{slot}',
  operationId: 'testEcho',
  summary: 'Echoes its validated input',
  tags: ['test'],
  scope: 'public',
  request: {
    path: z.object({ slot: z.coerce.number().int().min(1) }),
    query: z.object({ verbose: z.enum(['true', 'false']).optional() }),
    body: z.object({ name: z.string().min(1), years: z.number().int().min(1).max(10) }),
  },
  responses: { 200: { description: 'The input' } },
  handler: (ctx, input) => {
    ctx.body = input;
  },
});

const boomRoute = defineRoute({
  method: 'get',
  path: '/test/boom',
  operationId: 'testBoom',
  summary: 'Fails with an unexpected error',
  tags: ['test'],
  scope: 'public',
  responses: {},
  handler: () => {
    throw new Error('connection to db-primary.internal:5432 refused (password=hunter2)');
  },
});

const duplicateRoute = (app: () => TestApp) =>
  defineRoute({
    method: 'post',
    path: '/test/duplicate',
    operationId: 'testDuplicate',
    summary: 'Violates a unique constraint',
    tags: ['test'],
    scope: 'public',
    responses: {},
    handler: async () => {
      await withTransaction(app().deps.db, async (client) => {
        await client.query('CREATE TEMP TABLE dup (id int PRIMARY KEY) ON COMMIT DROP');
        await client.query('INSERT INTO dup VALUES (1), (1)');
      });
    },
  });

let app: TestApp;

beforeAll(async () => {
  app = await startTestApp({ extraRoutes: [echoRoute, boomRoute, duplicateRoute(() => app)] });
});
afterAll(async () => app?.close());

const postJson = (path: string, body: string, headers: Record<string, string> = {}) =>
  app.fetch(path, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body });

describe('request validation', () => {
  it('passes a valid request through with parsed values', async () => {
    const res = await postJson('/test/echo/3?verbose=true', JSON.stringify({ name: 'a', years: 2 }));
    expect(res.status).toBe(200);
    expect(await res.json()).toMatchObject({ path: { slot: 3 }, query: { verbose: 'true' }, body: { name: 'a', years: 2 } });
  });

  it('answers malformed JSON with 400 and a field error on the body', async () => {
    const res = await postJson('/test/echo/1', '{"name": "a",');
    expect(res.status).toBe(400);
    const body = await readJson<FieldErrorBody>(res);
    expect(body.code).toBe('INVALID_JSON');
    expect(body.detail).toEqual([expect.objectContaining({ loc: ['body'], type: 'json_invalid' })]);
  });

  it('answers a body that is not sent as JSON with 400', async () => {
    const res = await app.fetch('/test/echo/1', { method: 'POST', headers: { 'content-type': 'text/plain' }, body: 'name=a' });
    expect(res.status).toBe(400);
    expect(await res.json()).toEqual({
      code: 'INVALID_JSON',
      detail: [{ loc: ['body'], msg: 'Content-Type must be application/json', type: 'content_type_invalid' }],
    });
  });

  it('reports every schema problem at once as a 422 list located by request part', async () => {
    const res = await postJson('/test/echo/zero?verbose=maybe', JSON.stringify({ name: '', years: 11 }));
    expect(res.status).toBe(422);
    const body = await readJson<FieldErrorBody>(res);
    expect(body.code).toBe('VALIDATION_ERROR');
    const locs = body.detail.map((e) => e.loc.join('.'));
    expect(locs.sort()).toEqual(['body.name', 'body.years', 'path.slot', 'query.verbose']);
    for (const error of body.detail) {
      expect(error).toEqual({ loc: expect.any(Array), msg: expect.any(String), type: expect.any(String) });
    }
  });

  it('treats a missing body as a schema failure on the body', async () => {
    const res = await app.fetch('/test/echo/1', { method: 'POST' });
    expect(res.status).toBe(422);
    expect((await readJson<FieldErrorBody>(res)).detail).toEqual([expect.objectContaining({ loc: ['body'] })]);
  });

  it('refuses a body over 1 MB with 413', async () => {
    const big = JSON.stringify({ name: 'x'.repeat(2 * 1024 * 1024), years: 1 });
    const res = await postJson('/test/echo/1', big);
    expect(res.status).toBe(413);
    expect(await res.json()).toEqual({ code: 'PAYLOAD_TOO_LARGE', detail: expect.stringContaining('1048576') });
  });
});

describe('routing errors', () => {
  it('answers an unknown path with 404 in the error body', async () => {
    const res = await app.fetch('/api/v1/no-such-thing');
    expect(res.status).toBe(404);
    expect(await res.json()).toEqual({ detail: 'Not found', code: 'NOT_FOUND' });
  });

  it('answers a wrong method with 405 and Allow', async () => {
    const res = await app.fetch('/healthz', { method: 'DELETE' });
    expect(res.status).toBe(405);
    expect(res.headers.get('allow')).toContain('GET');
    expect(await res.json()).toMatchObject({ code: 'METHOD_NOT_ALLOWED' });
  });
});

describe('server faults', () => {
  it('answers 500 without internals and keeps the request id', async () => {
    const res = await app.fetch('/test/boom');
    expect(res.status).toBe(500);
    const requestId = res.headers.get('x-request-id');
    expect(requestId).toMatch(/^req_/);
    const text = await res.text();
    expect(text).not.toMatch(/hunter2|db-primary|at .*\.ts|stack/i);
    expect(JSON.parse(text)).toEqual({ code: 'INTERNAL', detail: expect.stringContaining(requestId!) });
  });

  it('maps a PostgreSQL unique violation (SQLSTATE 23505) to 409 DUPLICATE', async () => {
    const res = await app.fetch('/test/duplicate', { method: 'POST' });
    expect(res.status).toBe(409);
    const body = await readJson<MessageErrorBody>(res);
    expect(body.code).toBe('DUPLICATE');
    expect(body.detail).not.toMatch(/dup_pkey|INSERT/);
  });
});

describe('request ids', () => {
  it('gives every response an X-Request-Id, keeping a sane one the caller sent', async () => {
    const mine = await app.fetch('/healthz', { headers: { 'x-request-id': 'client-trace.42' } });
    expect(mine.headers.get('x-request-id')).toBe('client-trace.42');
    const generated = await app.fetch('/healthz', { headers: { 'x-request-id': 'bad id with spaces<script>' } });
    expect(generated.headers.get('x-request-id')).toMatch(/^req_[0-9A-Za-z]{22}$/);
    const notFound = await app.fetch('/nowhere');
    expect(notFound.headers.get('x-request-id')).toMatch(/^req_/);
  });
});
