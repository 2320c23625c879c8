import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { startTestApp, type TestApp } from '../support/testApp.js';
import { testWriteRoute } from '../support/testRoutes.js';
import { bearer, createKey, jsonHeaders, sessionToken, uniqueEmail } from '../support/actors.js';
import { readJson, type FieldErrorBody, type MessageErrorBody } from '../support/http.js';
import { openResponseBody } from '../../src/http/idempotencyCrypto.js';

let failuresLeft = 0;
let flakyCalls = 0;
const flakyRoute = testWriteRoute('flaky', 'Fails with a server fault while failuresLeft > 0', () => {
  flakyCalls += 1;
  if (failuresLeft > 0) {
    failuresLeft -= 1;
    throw new Error('transient fault');
  }
  return { call: flakyCalls };
});

/** Requests to /test/slow wait here until the test has them answer (false) or fail with a server fault (true). */
const slowWaiting: ((fail: boolean) => void)[] = [];
const slowRoute = testWriteRoute('slow', 'Answers, or fails, once the test says so', async () => {
  if (await new Promise<boolean>((resolve) => slowWaiting.push(resolve))) throw new Error('fault after a long wait');
  return { answered_at: Date.now() };
});

/** A /test/slow request's status once answered, or 'running' once its handler waits (`running` requests waiting). */
function slowRequestOutcome(res: Promise<Response>, running: number): Promise<number | 'running'> {
  const answered = res.then((r) => r.status);
  return vi.waitFor(async () => {
    if (slowWaiting.length >= running) return 'running' as const;
    const status = await Promise.race([answered, Promise.resolve(undefined)]);
    if (status === undefined) throw new Error('neither answered nor running yet');
    return status;
  });
}

let app: TestApp;
beforeAll(async () => {
  app = await startTestApp({ extraRoutes: [flakyRoute, slowRoute] });
});
// A test that failed half-way leaves its slow requests waiting: they are answered before the next test.
afterEach(() => {
  for (const answer of slowWaiting.splice(0)) answer(false);
});
afterAll(async () => app?.close());

const createKeyWith = (token: string, idempotencyKey: string, body: unknown) =>
  app.fetch('/api/v1/me/api-keys', {
    method: 'POST',
    headers: { ...jsonHeaders(token), 'idempotency-key': idempotencyKey },
    body: JSON.stringify(body),
  });

async function keysNamed(token: string, name: string): Promise<string[]> {
  const list = await readJson<{ data: { id: string; name: string }[] }>(
    await app.fetch('/api/v1/me/api-keys?limit=100', { headers: bearer(token) }),
  );
  return list.data.filter((k) => k.name === name).map((k) => k.id);
}

describe('Idempotency-Key', () => {
  it('replays the same answer, secret included, without creating a second key', async () => {
    const token = await sessionToken(app, uniqueEmail('idem'));
    const first = await createKeyWith(token, 'create-ci-key-1', { name: 'ci', scopes: ['dns:write'] });
    const second = await createKeyWith(token, 'create-ci-key-1', { scopes: ['dns:write'], name: 'ci' });
    expect(first.status).toBe(201);
    expect(second.status).toBe(201);
    expect(first.headers.get('idempotent-replayed')).toBeNull();
    expect(second.headers.get('idempotent-replayed')).toBe('true');
    const [a, b] = [await readJson<{ id: string; key: string }>(first), await readJson<{ id: string; key: string }>(second)];
    expect(b).toEqual(a);
    expect(await keysNamed(token, 'ci')).toEqual([a.id]);
  });

  it('stores the answer encrypted: the row holds no secret, and only that caller and key can read it', async () => {
    const token = await sessionToken(app, uniqueEmail('sealed'));
    const created = await readJson<{ key: string }>(await createKeyWith(token, 'sealed-1', { name: 'sealed', scopes: ['dns:read'] }));
    const { rows } = await app.deps.db.query<{ response_body: Buffer; user_id: string; livemode: boolean; credential: string }>(
      `SELECT response_body, user_id, livemode, credential FROM idempotency_keys WHERE key = 'sealed-1'`,
    );
    expect(rows).toHaveLength(1);
    const row = rows[0]!;
    expect(row.response_body.toString('latin1')).not.toContain(created.key.slice(9, 20));
    expect(row.response_body.toString('base64')).not.toContain(Buffer.from(created.key).toString('base64').slice(4, 20));
    const identity = { userId: row.user_id, livemode: row.livemode, key: 'sealed-1', credential: row.credential };
    expect(row.credential).toMatch(/^session:/);
    expect(openResponseBody(app.deps.keyHashSecret, identity, row.response_body).toString()).toContain(created.key);
    expect(() => openResponseBody(app.deps.keyHashSecret, { ...identity, key: 'sealed-2' }, row.response_body)).toThrow();
    // The credential is bound into the seal: even the right user's other key or session cannot open it.
    expect(() => openResponseBody(app.deps.keyHashSecret, { ...identity, credential: 'api_key:key_other' }, row.response_body)).toThrow();

    const stranger = await sessionToken(app, uniqueEmail('stranger'));
    const theirs = await readJson<{ key: string }>(await createKeyWith(stranger, 'sealed-1', { name: 'sealed', scopes: ['dns:read'] }));
    expect(theirs.key).not.toBe(created.key);
  });

  it('answers the same key with a different request with 409 IDEMPOTENCY_KEY_REUSED', async () => {
    const token = await sessionToken(app, uniqueEmail('reuse'));
    expect((await createKeyWith(token, 'reuse-1', { name: 'one', scopes: ['dns:read'] })).status).toBe(201);
    const other = await createKeyWith(token, 'reuse-1', { name: 'two', scopes: ['dns:read'] });
    expect(other.status).toBe(409);
    expect((await readJson<MessageErrorBody>(other)).code).toBe('IDEMPOTENCY_KEY_REUSED');
    const otherPath = await app.fetch('/api/v1/orgs', {
      method: 'POST',
      headers: { ...jsonHeaders(token), 'idempotency-key': 'reuse-1' },
      body: JSON.stringify({ name: 'one', scopes: ['dns:read'] }),
    });
    expect(otherPath.status).toBe(409);
  });

  it("never replays one credential's answer to another: a keys:write-only key cannot collect a wider key's secret", async () => {
    const email = uniqueEmail('replay-thief');
    const owner = await sessionToken(app, email);
    const narrow = await createKey(app, owner, { name: 'narrow', scopes: ['keys:write'] });
    const wideBody = { name: 'deploy', scopes: ['billing:write', 'keys:write', 'orgs:write'] };
    const original = await createKeyWith(owner, 'wide-key-1', wideBody);
    expect(original.status).toBe(201);
    const wide = await readJson<{ id: string; key: string }>(original);

    // The narrow key knows the Idempotency-Key and the body: it is refused, and learns nothing.
    const stolen = await createKeyWith(narrow.key, 'wide-key-1', wideBody);
    expect(stolen.status).toBe(409);
    expect(stolen.headers.get('idempotent-replayed')).toBeNull();
    const stolenText = await stolen.text();
    expect(JSON.parse(stolenText)).toMatchObject({ code: 'IDEMPOTENCY_KEY_REUSED' });
    expect(stolenText).not.toContain(wide.key);
    expect(stolenText).not.toContain(wide.id);

    // Another session of the same user is another credential too.
    const secondSession = await sessionToken(app, email);
    const fromOtherSession = await createKeyWith(secondSession, 'wide-key-1', wideBody);
    expect(fromOtherSession.status).toBe(409);
    expect(await fromOtherSession.text()).not.toContain(wide.key);

    // The credential that made it still gets its replay, and only one key was ever created.
    const replay = await createKeyWith(owner, 'wide-key-1', wideBody);
    expect(replay.headers.get('idempotent-replayed')).toBe('true');
    expect((await readJson<{ key: string }>(replay)).key).toBe(wide.key);
    expect(await keysNamed(owner, 'deploy')).toEqual([wide.id]);
  });

  it('refuses an empty Idempotency-Key with 422 instead of running the request unprotected', async () => {
    const token = await sessionToken(app, uniqueEmail('empty-key'));
    const res = await createKeyWith(token, '', { name: 'empty', scopes: ['dns:read'] });
    expect(res.status).toBe(422);
    expect((await readJson<FieldErrorBody>(res)).detail).toEqual([
      { loc: ['header', 'idempotency-key'], msg: expect.any(String), type: 'idempotency_key_invalid' },
    ]);
    expect(await keysNamed(token, 'empty')).toEqual([]);
  });

  it('lets 20 concurrent identical requests create exactly one key', async () => {
    const email = uniqueEmail('race');
    const tokens = await Promise.all(Array.from({ length: 4 }, () => sessionToken(app, email)));
    // Sessions of one user share the key space but not the answers: the session that claims the key
    // first gets 201 (or IN_USE while it runs), the other three are told the key is someone else's.
    const responses = await Promise.all(
      Array.from({ length: 20 }, async (_, i) => {
        const res = await createKeyWith(tokens[i % 4]!, 'race-1', { name: 'race', scopes: ['dns:read'] });
        const body = await readJson<{ id?: string; code?: string }>(res);
        return { session: i % 4, status: res.status, id: body.id, code: body.code };
      }),
    );
    expect(responses.filter((r) => r.status === 429)).toEqual([]);
    const winners = new Set(responses.filter((r) => r.status === 201).map((r) => r.session));
    expect(winners.size).toBe(1);
    const [winner] = [...winners];
    for (const r of responses.filter((x) => x.session === winner)) {
      expect(r.status === 201 || r.code === 'IDEMPOTENCY_KEY_IN_USE').toBe(true);
    }
    for (const r of responses.filter((x) => x.session !== winner)) expect(r).toMatchObject({ status: 409, code: 'IDEMPOTENCY_KEY_REUSED' });
    expect(new Set(responses.filter((r) => r.status === 201).map((r) => r.id)).size).toBe(1);
    expect(await keysNamed(tokens[0]!, 'race')).toHaveLength(1);
  });

  it('lets an expired key be used again', async () => {
    const token = await sessionToken(app, uniqueEmail('expired'));
    const first = await readJson<{ id: string }>(await createKeyWith(token, 'daily', { name: 'daily', scopes: ['dns:read'] }));
    await app.deps.db.query(`UPDATE idempotency_keys SET expires_at = now() - interval '1 second' WHERE key = 'daily'`);
    const again = await createKeyWith(token, 'daily', { name: 'daily', scopes: ['dns:read'] });
    expect(again.headers.get('idempotent-replayed')).toBeNull();
    const second = await readJson<{ id: string }>(again);
    expect(second.id).not.toBe(first.id);
    expect((await keysNamed(token, 'daily')).sort()).toEqual([first.id, second.id].sort());
  });

  it('does not store server faults, so the retry runs the action', async () => {
    const token = await sessionToken(app, uniqueEmail('fault'));
    failuresLeft = 1;
    const headers = { ...bearer(token), 'idempotency-key': 'flaky-1' };
    expect((await app.fetch('/test/flaky', { method: 'POST', headers })).status).toBe(500);
    const retry = await app.fetch('/test/flaky', { method: 'POST', headers });
    expect(retry.status).toBe(201);
    expect(retry.headers.get('idempotent-replayed')).toBeNull();
    const replay = await app.fetch('/test/flaky', { method: 'POST', headers });
    expect(replay.headers.get('idempotent-replayed')).toBe('true');
    expect(await replay.json()).toEqual(await retry.json());
  });

  it('answers a retry while the first request runs with IDEMPOTENCY_KEY_IN_USE and Retry-After, and the first keeps its key past its lease', { timeout: 30_000 }, async () => {
    const token = await sessionToken(app, uniqueEmail('slow'));
    const key = `slow-${Date.now()}`;
    const headers = { ...bearer(token), 'idempotency-key': key };
    const first = app.fetch('/test/slow', { method: 'POST', headers });
    await expect.poll(() => slowWaiting.length).toBe(1);
    const leaseEnd = async () =>
      (await app.deps.db.query<{ ends: Date }>('SELECT locked_until AS ends FROM idempotency_keys WHERE key = $1', [key])).rows[0]!.ends.getTime();
    const firstLeaseEnd = await leaseEnd();

    // Retried until well past the lease the first request started with: every retry is refused, is
    // told how long to wait, and never runs.
    while (Date.now() < firstLeaseEnd + 2_000) {
      const retry = await app.fetch('/test/slow', { method: 'POST', headers });
      expect(retry.status).toBe(409);
      expect((await readJson<MessageErrorBody>(retry)).code).toBe('IDEMPOTENCY_KEY_IN_USE');
      expect(retry.headers.get('retry-after')).toMatch(/^([1-9]|10)$/);
      await new Promise((resolve) => setTimeout(resolve, 500));
    }
    expect(await leaseEnd()).toBeGreaterThan(firstLeaseEnd);
    expect(slowWaiting).toHaveLength(1);

    slowWaiting.shift()!(false);
    const answered = await first;
    expect(answered.status).toBe(201);
    const replay = await app.fetch('/test/slow', { method: 'POST', headers });
    expect(replay.headers.get('idempotent-replayed')).toBe('true');
    expect(await replay.json()).toEqual(await answered.json());
  });

  it('leaves a retry that took over an expired lease its key: the request it took over frees nothing when it fails late', async () => {
    const token = await sessionToken(app, uniqueEmail('late'));
    const key = `late-${Date.now()}`;
    const headers = { ...bearer(token), 'idempotency-key': key };
    const send = () => app.fetch('/test/slow', { method: 'POST', headers });
    const first = send();
    await expect.poll(() => slowWaiting.length).toBe(1);

    // The first request's renewals stop reaching the database (a stalled process): its lease runs
    // out and the retry takes the key. A renewal may land first; then the retry is refused and tried again.
    let second: Promise<Response> | undefined;
    for (let attempt = 0; attempt < 5 && !second; attempt += 1) {
      await app.deps.db.query(`UPDATE idempotency_keys SET locked_until = now() - interval '1 second' WHERE key = $1`, [key]);
      const retry = send();
      if ((await slowRequestOutcome(retry, 2)) === 'running') second = retry;
    }
    expect(second).toBeDefined();

    slowWaiting.shift()!(true);
    expect((await first).status).toBe(500);
    const third = send();
    expect(await slowRequestOutcome(third, 2)).toBe(409);
    expect((await readJson<MessageErrorBody>(await third)).code).toBe('IDEMPOTENCY_KEY_IN_USE');

    slowWaiting.shift()!(false);
    const answered = await second!;
    expect(answered.status).toBe(201);
    const replay = await send();
    expect(replay.headers.get('idempotent-replayed')).toBe('true');
    expect(await replay.json()).toEqual(await answered.json());
  });

  it('stores and replays client errors such as 422', async () => {
    const token = await sessionToken(app, uniqueEmail('invalid'));
    const first = await createKeyWith(token, 'bad-body', { name: '', scopes: [] });
    expect(first.status).toBe(422);
    const second = await createKeyWith(token, 'bad-body', { name: '', scopes: [] });
    expect(second.status).toBe(422);
    expect(second.headers.get('idempotent-replayed')).toBe('true');
    expect(await second.json()).toEqual(await first.json());
  });

  it('validates the header: 1 to 255 printable ASCII characters', async () => {
    const token = await sessionToken(app, uniqueEmail('header'));
    for (const bad of ['x'.repeat(256), 'tab\there']) {
      const res = await createKeyWith(token, bad, { name: 'h', scopes: ['dns:read'] });
      expect(res.status).toBe(422);
      expect((await readJson<FieldErrorBody>(res)).detail).toEqual([
        { loc: ['header', 'idempotency-key'], msg: expect.any(String), type: 'idempotency_key_invalid' },
      ]);
    }
  });
});
