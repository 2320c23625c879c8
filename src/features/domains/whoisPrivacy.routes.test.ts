import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../../../test/support/testApp.js';
import { bearer, jsonHeaders } from '../../../test/support/actors.js';
import { customerFactory } from '../../../test/support/customers.js';
import { readJson, type MessageErrorBody } from '../../../test/support/http.js';
import { listAuditEventsForTarget } from '../../audit/auditEvents.js';
import { findDomainOfOrg } from './domains.repository.js';
import { REGISTRAR_RETRY_AFTER_SECONDS } from './domainSettings.js';
import { operationWorkflowId, recordHistory } from '../../../test/support/histories.js';
import { modeOf } from '../../db/modeScope.js';

/** WHOIS privacy in test mode: the synthetic registrar (docs/api-guide.md, WHOIS privacy). */
let app: TestApp;
let f: ReturnType<typeof customerFactory>;
beforeAll(async () => {
  app = await startTestApp({ worker: true });
  f = customerFactory(app);
});
afterAll(async () => app?.close());

type Customer = Awaited<ReturnType<ReturnType<typeof customerFactory>['customer']>>;

async function registered(label: string, extra: Record<string, unknown> = {}, testSuffix = '') {
  const c = await f.customer(5_000);
  const name = `${label}-${Date.now()}${testSuffix}.com`;
  const res = await f.register(c, { name, years: 1, registrant_contact_id: c.contactId, ...extra }, `reg-${name}`);
  expect(res.status).toBe(202);
  const op = await f.pollUntilFinished(c, res.headers.get('location')!);
  return { c, name, op, url: `/api/v1/orgs/${c.org.id}/domains/${name}` };
}

const patch = (c: Customer, url: string, body: unknown, ifMatch?: string) =>
  app.fetch(url, { method: 'PATCH', headers: { ...jsonHeaders(c.key), ...(ifMatch ? { 'if-match': ifMatch } : {}) }, body: JSON.stringify(body) });

describe('WHOIS privacy on a domain (test mode)', () => {
  it('is off by default, turned on and off with PATCH under If-Match, each change audited', async () => {
    const { c, name, url } = await registered('hidden');
    const shown = await app.fetch(url, { headers: bearer(c.key) });
    expect(await shown.json()).toMatchObject({ whois_privacy: false, version: 1 });

    const on = await patch(c, url, { whois_privacy: true }, '"1"');
    expect(on.status).toBe(200);
    expect(on.headers.get('etag')).toBe('"2"');
    expect(await on.json()).toMatchObject({ whois_privacy: true, version: 2 });
    expect(await (await app.fetch(url, { headers: bearer(c.key) })).json()).toMatchObject({ whois_privacy: true });
    // Asking for what is already so calls no registrar and writes no audit entry.
    expect(await (await patch(c, url, { whois_privacy: true }, '"2"')).json()).toMatchObject({ whois_privacy: true, version: 3 });

    const stale = await patch(c, url, { whois_privacy: false }, '"1"');
    expect(stale.status).toBe(409);
    expect((await readJson<MessageErrorBody>(stale)).code).toBe('VERSION_MISMATCH');
    const off = await patch(c, url, { whois_privacy: false }, '"3"');
    expect(await off.json()).toMatchObject({ whois_privacy: false, version: 4 });

    const domain = (await findDomainOfOrg(app.deps.db, modeOf(false), c.org.id, name))!;
    const audit = await listAuditEventsForTarget(app.deps.db, 'domain', domain.id);
    expect(audit.map((e) => [e.action, e.data])).toEqual([
      ['domain.whois_privacy_changed', { livemode: false, name, whois_privacy: true, previous: false, version: 2 }],
      ['domain.whois_privacy_changed', { livemode: false, name, whois_privacy: false, previous: true, version: 4 }],
    ]);
    expect(audit[0]).toMatchObject({ orgId: c.org.id, actorKeyId: expect.any(String), requestId: on.headers.get('x-request-id') });
  });

  it('a registrar outage (a -flaky name answers 503 twice) is 503 with Retry-After and leaves it unchanged', async () => {
    const { c, url } = await registered('shaky', {}, '-flaky');
    for (let attempt = 0; attempt < 2; attempt++) {
      const down = await patch(c, url, { whois_privacy: true });
      expect(down.status).toBe(503);
      expect(down.headers.get('retry-after')).toBe(String(REGISTRAR_RETRY_AFTER_SECONDS));
      expect((await readJson<MessageErrorBody>(down)).code).toBe('UPSTREAM_UNAVAILABLE');
      expect(await (await app.fetch(url, { headers: bearer(c.key) })).json()).toMatchObject({ whois_privacy: false, version: 1 });
    }
    expect(await (await patch(c, url, { whois_privacy: true })).json()).toMatchObject({ whois_privacy: true, version: 2 });
  });

  it('registering with whois_privacy: true ends with it on', async () => {
    const { c, op, url } = await registered('private', { whois_privacy: true });
    expect(op).toMatchObject({ status: 'succeeded', result: { status: 'active' } });
    expect(op.result).not.toHaveProperty('whois_privacy_applied');
    expect(await (await app.fetch(url, { headers: bearer(c.key) })).json()).toMatchObject({ status: 'active', whois_privacy: true });
    await recordHistory(app, await operationWorkflowId(app, op.id), 'register-whois-privacy');
  });

  it('transferring in with whois_privacy: true ends with it on', async () => {
    const c = await f.customer(5_000);
    const name = `moving-${Date.now()}.com`;
    const res = await app.fetch(`/api/v1/orgs/${c.org.id}/domains/transfers`, {
      method: 'POST',
      headers: { ...jsonHeaders(c.key), 'idempotency-key': `transfer-${name}` },
      body: JSON.stringify({ name, auth_code: 'secret-code', registrant_contact_id: c.contactId, whois_privacy: true }),
    });
    expect(res.status).toBe(202);
    const done = await f.pollUntilFinished(c, res.headers.get('location')!);
    expect(done.status).toBe('succeeded');
    expect(await (await app.fetch(`/api/v1/orgs/${c.org.id}/domains/${name}`, { headers: bearer(c.key) })).json()).toMatchObject({
      status: 'active',
      whois_privacy: true,
    });
    await recordHistory(app, await operationWorkflowId(app, done.id), 'transfer-whois-privacy');
  });
});
