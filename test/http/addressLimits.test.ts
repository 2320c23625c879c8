import http from 'node:http';
import { randomInt } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { startTestApp, type TestApp } from '../support/testApp.js';
import { createKey, sessionToken, uniqueEmail } from '../support/actors.js';
import { startFakeGithub, type FakeGithub } from '../support/fakeGithub.js';
import { checksumOf, generateApiKey, hashApiKey } from '../../src/auth/apiKeyFormat.js';
import { insertApiKey } from '../../src/auth/apiKeys.js';
import { newId, randomBase62 } from '../../src/ids.js';
import { holdableClock } from '../support/manualClock.js';

interface Answer {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: string;
}

/**
 * A request from a loopback address of the test's choosing (all of 127.0.0.0/8 reaches the server),
 * so this file's per-address pools are its own, whatever else runs. Without X-Forwarded-For the
 * test app's trusted loopback proxy is itself the client.
 */
function request(app: TestApp, from: string, path: string, init: { method?: string; headers?: Record<string, string>; body?: string } = {}) {
  const url = new URL(path, app.url);
  return new Promise<Answer>((resolve, reject) => {
    const req = http.request(
      { host: url.hostname, port: url.port, path: url.pathname + url.search, method: init.method ?? 'GET', headers: init.headers, localAddress: from, agent: false },
      (res) => {
        let body = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => (body += chunk));
        res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers, body }));
      },
    );
    req.on('error', reject);
    req.end(init.body);
  });
}

const someAddress = () => `127.${randomInt(1, 255)}.${randomInt(0, 255)}.${randomInt(1, 255)}`;
const forgedKey = () => `svc_live_${randomBase62(32)}AAAAAA`;
const bearer = (token: string) => ({ authorization: `Bearer ${token}` });

/** Two processes of one deployment share the key-hash secret. */
const KEY_HASH_SECRET = randomBase62(40);

// Bursts are sent with the limiter's clock held, so each is decided in the windows it is meant for.
const clock = holdableClock();
let app: TestApp;
let github: FakeGithub;
beforeAll(async () => {
  github = await startFakeGithub();
  app = await startTestApp({ env: { GITHUB_API_URL: github.url, KEY_HASH_SECRET }, rateLimitClock: clock.now });
});
afterAll(async () => {
  await app?.close();
  await github?.close();
});

describe('failed authentication, per client address', () => {
  it('answers 429 to a flood of forged keys, and still serves every credential that verifies from that address', async () => {
    const attacker = someAddress();
    const session = await sessionToken(app, uniqueEmail('neighbour'));
    const good = await createKey(app, session, { name: 'good', scopes: ['orgs:read'] });
    // The flood and the last forged key in one minute (a new window would rightly answer 401 again): the
    // clock held from a minute's start, a batch of 20 every half second of it, however slow the answers.
    clock.hold('minute');
    const statuses: number[] = [];
    let refused: Answer | undefined;
    for (let batch = 0; batch < 20; batch++) {
      const answers = await Promise.all(Array.from({ length: 20 }, () => request(app, attacker, '/api/v1/me', { headers: bearer(forgedKey()) })));
      statuses.push(...answers.map((a) => a.status));
      refused ??= answers.find((a) => a.status === 429);
      clock.advance(500);
    }
    clock.release();
    expect(statuses).toHaveLength(400);
    // 60 a minute at most, 10 a second; requests already counted when a block starts still answer 401.
    expect(statuses.filter((s) => s === 401).length).toBeLessThanOrEqual(60);
    expect(statuses.filter((s) => s === 429).length).toBeGreaterThanOrEqual(340);
    expect(JSON.parse(refused!.body)).toMatchObject({ code: 'RATE_LIMITED' });
    expect(refused!.headers['retry-after']).toMatch(/^[1-9]\d*$/);
    expect(refused!.headers['x-ratelimit-limit']).toBe('60');
    expect(refused!.headers['x-ratelimit-remaining']).toBe('0');
    expect(Number(refused!.headers['x-ratelimit-reset'])).toBeGreaterThan(Date.now() / 1000);

    // A block after refusals lasts twice the one before: failing on until one has seconds left, so
    // what follows happens inside it even when a busy machine answers slowly (src/rateLimit/script.ts).
    let blockSeconds = Number(refused!.headers['retry-after']);
    const escalatedBy = Date.now() + 20_000;
    while (blockSeconds < 4 && Date.now() < escalatedBy) {
      const answer = await request(app, attacker, '/api/v1/me', { headers: bearer(forgedKey()) });
      if (answer.status === 429) blockSeconds = Number(answer.headers['retry-after']);
    }
    expect(blockSeconds).toBeGreaterThanOrEqual(4);

    // Inside the block, a good key and a session are served and counted on their own pools (read:
    // 300 a minute), whether the process verifies them afresh or answers them from memory.
    for (const token of [good.key, session, good.key, session]) {
      const served = await request(app, attacker, '/api/v1/me', { headers: bearer(token) });
      expect(served.status).toBe(200);
      expect(served.headers['x-ratelimit-limit']).toBe('300');
    }
    const stillForged = await request(app, attacker, '/api/v1/me', { headers: bearer(forgedKey()) });
    expect(stillForged.status).toBe(429);
    expect(stillForged.headers['retry-after']).toMatch(/^[1-9]\d*$/);
  });

  it('serves a valid key and a brand-new sign-in from an address whose stale secret is past its limit', async () => {
    const office = someAddress();
    const owner = await sessionToken(app, uniqueEmail('office-owner'));
    const good = await createKey(app, owner, { name: 'ci', scopes: ['orgs:read'] });
    const forged: Answer[] = [];
    for (let i = 0; i < 40; i++) forged.push(await request(app, office, '/api/v1/me', { headers: bearer(forgedKey()) }));
    const lastRefusedAt = Date.now();
    const statuses = forged.map((a) => a.status);
    const firstRefusal = statuses.indexOf(429);
    expect(firstRefusal).toBeGreaterThan(0);
    expect(statuses.slice(0, firstRefusal).every((s) => s === 401)).toBe(true);
    for (const refused of forged.filter((a) => a.status === 429)) {
      expect(JSON.parse(refused.body)).toMatchObject({ code: 'RATE_LIMITED' });
      expect(refused.headers['retry-after']).toMatch(/^[1-9]\d*$/);
    }

    const newcomer = await app.deps.devIdentity!.issueToken({ email: uniqueEmail('office-newcomer') });
    for (const token of [good.key, newcomer]) {
      const served = await request(app, office, '/api/v1/me', { headers: bearer(token) });
      expect(served.status).toBe(200);
      // Its own pool (read: 300 a minute), not the address's failed-authentication pool (60).
      expect([served.headers['x-ratelimit-limit'], served.headers['x-ratelimit-remaining']]).toEqual(['300', '299']);
    }

    // Served requests did not lengthen the block: once the last Retry-After has passed, a failure is a 401 again.
    const retryAfter = Number(forged.at(-1)!.headers['retry-after'] ?? 0);
    await new Promise((resolve) => setTimeout(resolve, Math.max(0, lastRefusedAt + retryAfter * 1000 + 50 - Date.now())));
    expect((await request(app, office, '/api/v1/me', { headers: bearer(forgedKey()) })).status).toBe(401);
  });

  it('refuses failures past the limit without a database look-up for look-alikes or a remembered miss', async () => {
    const from = someAddress();
    const unknown = generateApiKey('live').key;
    const lookups = vi.spyOn(app.deps.apiKeys, 'verifyHash');
    try {
      const answers: Answer[] = [];
      for (let i = 0; i < 15; i++) answers.push(await request(app, from, '/api/v1/me', { headers: bearer(forgedKey()) }));
      for (let i = 0; i < 15; i++) answers.push(await request(app, from, '/api/v1/me', { headers: bearer(unknown) }));
      expect(answers.at(-1)!.status).toBe(429);
      // Bad checksums are refused by their shape; the unknown key is looked up once, then remembered.
      expect(lookups).toHaveBeenCalledTimes(1);
    } finally {
      lookups.mockRestore();
    }
  });

  it('lets a good key through from an address with a few failures', async () => {
    const from = someAddress();
    const session = await sessionToken(app, uniqueEmail('typo'));
    const good = await createKey(app, session, { name: 'good', scopes: ['orgs:read'] });
    for (let i = 0; i < 5; i++) expect((await request(app, from, '/api/v1/me', { headers: bearer(forgedKey()) })).status).toBe(401);
    expect((await request(app, from, '/api/v1/me')).status).toBe(401); // no header at all counts too
    expect((await request(app, from, '/api/v1/me', { headers: bearer(good.key) })).status).toBe(200);
  });
});

describe('unknown-key misses', () => {
  it('are remembered briefly, and forgotten in every process the moment a key with that secret exists', async () => {
    const other = await startTestApp({ env: { KEY_HASH_SECRET } });
    try {
      const session = await sessionToken(app, uniqueEmail('misses'));
      const userId = (JSON.parse((await request(app, someAddress(), '/api/v1/me', { headers: bearer(session) })).body) as { id: string }).id;
      const { key, prefix } = generateApiKey('live');
      expect(checksumOf(key.slice(0, -6))).toBe(key.slice(-6));
      const secretHash = hashApiKey(app.deps.keyHashSecret, key);
      for (const target of [app, other]) {
        const res = await request(target, someAddress(), '/api/v1/me', { headers: bearer(key) });
        expect(res.status).toBe(401);
        expect(JSON.parse(res.body)).toEqual({ code: 'INVALID_TOKEN', detail: 'Unknown API key' });
      }
      // A look-up that overlaps any key's creation is not remembered, and other files create keys on
      // this Redis all the time: ask again until `other` holds the miss.
      const remembered = Date.now() + 5_000;
      while (!other.deps.keyMisses.lookup(secretHash.toString('hex')) && Date.now() < remembered) {
        expect((await request(other, someAddress(), '/api/v1/me', { headers: bearer(key) })).status).toBe(401);
      }
      // The key appears in the database behind the caches' backs: the misses still answer for it.
      await insertApiKey(app.deps.db, { id: newId('key'), userId, name: 'late', scopes: ['orgs:read'], mode: 'live', prefix, secretHash });
      expect((await request(other, someAddress(), '/api/v1/me', { headers: bearer(key) })).status).toBe(401);
      // Creating a key announces its hash (src/features/apiKeys/createApiKey.ts): both processes forget the miss.
      await app.deps.keyMisses.created(secretHash.toString('hex'));
      expect((await request(app, someAddress(), '/api/v1/me', { headers: bearer(key) })).status).toBe(200);
      const deadline = Date.now() + 2_000;
      let status = 0;
      while (Date.now() < deadline && (status = (await request(other, someAddress(), '/api/v1/me', { headers: bearer(key) })).status) !== 200) {
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
      expect(status).toBe(200);
    } finally {
      await other.close();
    }
  });
});

describe('public routes, per client address', () => {
  it('refuses a burst past 30 a second with 429 and the usual headers', async () => {
    const from = someAddress();
    const answers = await clock.held(() => Promise.all(Array.from({ length: 40 }, () => request(app, from, '/healthz'))));
    expect(answers.filter((a) => a.status === 200)).toHaveLength(30);
    const refused = answers.find((a) => a.status === 429)!;
    expect(JSON.parse(refused.body)).toMatchObject({ code: 'RATE_LIMITED' });
    expect(refused.headers['retry-after']).toMatch(/^[1-9]\d*$/);
    expect(refused.headers['x-ratelimit-limit']).toBe('300');
    expect((await request(app, someAddress(), '/healthz')).status).toBe(200);
  });
});

describe('GitHub alerts', () => {
  it('checks the signature on the raw bytes before parsing them', async () => {
    const body = '{"not": json';
    const forged = await request(app, someAddress(), '/api/v1/secret-scanning/github', {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        'github-public-key-identifier': github.keys[0]!.identifier,
        'github-public-key-signature': github.sign(body, github.unpublishedKey()),
      },
      body,
    });
    expect(forged.status).toBe(401);
    expect(JSON.parse(forged.body)).toMatchObject({ code: 'INVALID_SIGNATURE' });
    const signed = await request(app, someAddress(), '/api/v1/secret-scanning/github', {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'github-public-key-identifier': github.keys[0]!.identifier, 'github-public-key-signature': github.sign(body) },
      body,
    });
    expect(signed.status).toBe(400);
    expect(JSON.parse(signed.body)).toMatchObject({ code: 'INVALID_JSON' });
  });
});

describe('GitHub alerts without a body', () => {
  it('are refused for their signature, not their shape', async () => {
    const res = await request(app, someAddress(), '/api/v1/secret-scanning/github', { method: 'POST', headers: { 'content-type': 'application/json' } });
    expect(res.status).toBe(401);
    expect(JSON.parse(res.body)).toMatchObject({ code: 'INVALID_SIGNATURE' });
  });
});
