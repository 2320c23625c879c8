/**
 * `npm run dev` (scripts/dev.ts sets WEBHOOK_TEST_LOOPBACK=true): a test-mode endpoint may be an
 * http receiver on the developer's machine; a live one never, nor anything else inside a private
 * network. WEBHOOK_ALLOW_PRIVATE stays unset, as it does under `npm run dev`.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../../../test/support/testApp.js';
import { bearer, createOrg, jsonHeaders, sessionToken, uniqueEmail } from '../../../test/support/actors.js';
import { readJson, type FieldErrorBody } from '../../../test/support/http.js';
import { startWebhookReceiver, type WebhookReceiver } from '../../../test/support/webhookReceiver.js';
import { pingOnce } from '../../../test/support/webhookDelivery.js';
import { devEnvironment } from '../../../scripts/lib/devEnvironment.js';
import { ConfigError, loadConfig } from '../../config.js';

let app: TestApp;
let hooks: WebhookReceiver;
let owner: string;
let orgId: string;

beforeAll(async () => {
  hooks = await startWebhookReceiver();
  app = await startTestApp({ worker: true, env: { WEBHOOK_TEST_LOOPBACK: 'true' } });
  owner = await sessionToken(app, uniqueEmail('dev-hooks'));
  orgId = (await createOrg(app, owner)).id;
});
afterAll(async () => {
  await app?.close();
  await hooks?.close();
});

const create = (url: string, mode: 'test' | 'live') =>
  app.fetch(`/api/v1/orgs/${orgId}/webhook-endpoints`, {
    method: 'POST',
    headers: { ...jsonHeaders(owner), 'x-mode': mode },
    body: JSON.stringify({ url, events: ['*'] }),
  });

describe('webhooks under npm run dev', () => {
  it('a test-mode endpoint at an http receiver on loopback is saved and delivered to', async () => {
    expect(hooks.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\//);
    const res = await create(hooks.url, 'test');
    expect(res.status).toBe(201);
    const endpoint = await readJson<{ id: string; livemode: boolean }>(res);
    expect(endpoint.livemode).toBe(false);

    const { eventId, result } = await pingOnce(app, { orgId, endpointId: endpoint.id, livemode: false });
    expect(result).toEqual({ outcome: 'delivered', attempts: 1 });
    const hook = await hooks.waitFor((h) => h.headers['webhook-id'] === eventId);
    expect(JSON.parse(hook.body)).toMatchObject({ id: eventId, type: 'ping', livemode: false });
    const log = await readJson<{ data: { status_code: number | null; error: string | null }[] }>(
      await app.fetch(`/api/v1/orgs/${orgId}/webhook-endpoints/${endpoint.id}/deliveries`, { headers: { ...bearer(owner), 'x-mode': 'test' } }),
    );
    expect(log.data).toEqual([expect.objectContaining({ status_code: 200, error: null })]);
  });

  it('refuses the same receiver for a live-mode endpoint, and http anywhere but loopback', async () => {
    const refused: [string, 'test' | 'live'][] = [
      [hooks.url, 'live'],
      ['http://localhost:4000/', 'live'],
      ['http://hooks.example.com/', 'test'],
      ['http://10.0.0.1/', 'test'],
      ['http://192.168.1.20:4000/', 'test'],
      ['https://169.254.169.254/', 'test'],
    ];
    for (const [url, mode] of refused) {
      const res = await create(url, mode);
      expect(res.status, `${mode} ${url}`).toBe(422);
      expect((await readJson<FieldErrorBody>(res)).detail[0]!.loc).toEqual(['body', 'url']);
    }
  });

  it('is what npm run dev runs with, unless told otherwise; never in production', () => {
    expect(loadConfig(devEnvironment({})).webhooks.testLoopback).toBe(true);
    expect(loadConfig(devEnvironment({ WEBHOOK_TEST_LOOPBACK: 'false' })).webhooks.testLoopback).toBe(false);
    expect(loadConfig({}).webhooks.testLoopback).toBe(false);
    expect(devEnvironment({ NODE_ENV: 'production' })).not.toHaveProperty('WEBHOOK_TEST_LOOPBACK');
    expect(() => loadConfig({ NODE_ENV: 'production', WEBHOOK_TEST_LOOPBACK: 'true' })).toThrow(ConfigError);
  });
});
