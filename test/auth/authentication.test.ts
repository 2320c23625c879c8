import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../support/testApp.js';
import { startJwksServer, unsignedToken, type JwksServer } from '../support/jwksServer.js';
import { bearer, createKey, jsonHeaders, sessionToken, uniqueEmail } from '../support/actors.js';
import { readJson, simulatedClientAddress, type MessageErrorBody } from '../support/http.js';
import { checksumOf } from '../../src/auth/apiKeyFormat.js';
import { revokeApiKey } from '../../src/features/apiKeys/revokeApiKey.js';

let idp: JwksServer;
let app: TestApp;

beforeAll(async () => {
  idp = await startJwksServer();
  app = await startTestApp({
    env: { AUTH_JWKS_URL: idp.jwksUrl, AUTH_ISSUER: idp.issuer, AUTH_AUDIENCE: idp.audience },
  });
});
afterAll(async () => {
  await app?.close();
  await idp?.close();
});

/**
 * Each refusal checked is a client of its own (X-Forwarded-For), as many stale credentials arrive
 * from many callers: one address sending all of them would pass its failed-authentication limit.
 */
async function expect401(headers: Record<string, string>, code: string) {
  const res = await app.fetch('/api/v1/me', { headers: { ...headers, 'x-forwarded-for': simulatedClientAddress() } });
  expect(res.status).toBe(401);
  expect(res.headers.get('www-authenticate')).toMatch(/^Bearer/);
  const body = await readJson<MessageErrorBody>(res);
  expect(body.code).toBe(code);
  return body;
}

describe('session JWTs from an external identity provider', () => {
  it('accepts RS256 and EdDSA tokens and creates the user on first sight', async () => {
    const sub = `ext-${Math.random().toString(36).slice(2)}`;
    const rs = await app.fetch('/api/v1/me', { headers: bearer(await idp.sign({ sub, email: 'Ext@Example.com', name: 'Ext' })) });
    expect(rs.status).toBe(200);
    const me = await readJson<{ id: string; email: string; name: string; auth: { type: string; mode: string; scopes: string[] } }>(rs);
    expect(me).toMatchObject({ email: 'Ext@Example.com', name: 'Ext', auth: { type: 'session', mode: 'live' } });
    // A session holds every scope: the twelve of the first release and webhooks:read, webhooks:write.
    expect(me.auth.scopes).toHaveLength(14);
    expect(me.auth.scopes).toEqual(expect.arrayContaining(['webhooks:read', 'webhooks:write']));
    const ed = await app.fetch('/api/v1/me', { headers: bearer(await idp.sign({ sub, alg: 'EdDSA', email: 'new@example.com' })) });
    expect(await readJson(ed)).toMatchObject({ id: me.id, email: 'new@example.com' });
  });

  it('answers a request without a token with exactly {"detail": "Not authenticated"}', async () => {
    const res = await app.fetch('/api/v1/me');
    expect(res.status).toBe(401);
    expect(res.headers.get('www-authenticate')).toBe('Bearer');
    expect(await res.json()).toEqual({ detail: 'Not authenticated' });
  });

  it('refuses malformed headers and tokens', async () => {
    await expect401({ authorization: 'Basic YWxpY2U6c2VjcmV0' }, 'INVALID_TOKEN');
    await expect401({ authorization: 'Bearer' }, 'INVALID_TOKEN');
    await expect401({ authorization: 'Bearer not-a-token' }, 'INVALID_TOKEN');
    await expect401(bearer('aaa.bbb.ccc'), 'INVALID_TOKEN');
  });

  it('refuses a token from an unknown signer', async () => {
    await expect401(bearer(await idp.sign({ unknownSigner: true })), 'INVALID_TOKEN');
  });

  it('answers an expired token with TOKEN_EXPIRED', async () => {
    await expect401(bearer(await idp.sign({ expiresIn: -60 })), 'TOKEN_EXPIRED');
  });

  it('refuses a wrong issuer, a wrong audience and a token without exp', async () => {
    await expect401(bearer(await idp.sign({ issuer: 'https://evil.example.com/' })), 'INVALID_TOKEN');
    await expect401(bearer(await idp.sign({ audience: 'someone-else' })), 'INVALID_TOKEN');
    await expect401(bearer(await idp.sign({ noExp: true })), 'INVALID_TOKEN');
  });

  it('refuses alg none', async () => {
    const token = unsignedToken({ sub: 'user-1', iss: idp.issuer, aud: idp.audience, exp: Math.floor(Date.now() / 1000) + 3600 });
    await expect401(bearer(token), 'INVALID_TOKEN');
  });
});

describe('API keys as bearer tokens', () => {
  let session: string;
  beforeAll(async () => {
    session = await idp.sign({ sub: `keys-${Math.random().toString(36).slice(2)}`, email: uniqueEmail('keys') });
  });

  it('refuses look-alikes with a bad checksum and unknown keys with a valid one', async () => {
    const body = `svc_live_${'A'.repeat(32)}`;
    const wrongChecksum = body + (checksumOf(body) === '000000' ? '000001' : '000000');
    expect((await expect401(bearer(wrongChecksum), 'INVALID_TOKEN')).detail).toMatch(/malformed/);
    expect((await expect401(bearer(body + checksumOf(body)), 'INVALID_TOKEN')).detail).toMatch(/Unknown/);
  });

  it('answers a deleted key with 401', async () => {
    const created = await createKey(app, session, { name: 'short-lived', scopes: ['keys:read'] });
    expect((await app.fetch('/api/v1/me', { headers: bearer(created.key) })).status).toBe(200);
    const del = await app.fetch(`/api/v1/me/api-keys/${created.id}`, { method: 'DELETE', headers: bearer(session) });
    expect(del.status).toBe(204);
    await expect401(bearer(created.key), 'INVALID_TOKEN');
  });

  it('answers a revoked key with API_KEY_REVOKED and keeps it in the owner\'s list with its reason', async () => {
    const created = await createKey(app, session, { name: 'leaky', scopes: ['domains:read'] });
    expect((await app.fetch('/api/v1/me', { headers: bearer(created.key) })).status).toBe(200);
    await revokeApiKey({
      db: app.deps.db,
      apiKeys: app.deps.apiKeys,
      keyId: created.id,
      reason: 'found in public source code',
      sourceUrl: 'https://github.com/example/repo/blob/main/.env',
      requestId: null,
    });
    const body = await expect401(bearer(created.key), 'API_KEY_REVOKED');
    expect(body.detail).toContain('found in public source code');
    const list = await readJson<{ data: { id: string; status: string; revoked_reason: string; revoked_at: string }[] }>(
      await app.fetch('/api/v1/me/api-keys', { headers: bearer(session) }),
    );
    expect(list.data.find((k) => k.id === created.id)).toMatchObject({
      status: 'revoked',
      revoked_reason: 'found in public source code',
      revoked_at: expect.any(String),
    });
  });
});

describe('development identity provider', () => {
  it('verifies its own tokens when no external provider is configured', async () => {
    const dev = await startTestApp();
    try {
      const token = await sessionToken(dev, uniqueEmail('dev'));
      const res = await dev.fetch('/api/v1/orgs', { method: 'POST', headers: jsonHeaders(token), body: '{"name":"Dev Org"}' });
      expect(res.status).toBe(201);
      // A token of the external provider means nothing to the development one.
      expect((await dev.fetch('/api/v1/me', { headers: bearer(await idp.sign()) })).status).toBe(401);
    } finally {
      await dev.close();
    }
  });
});
