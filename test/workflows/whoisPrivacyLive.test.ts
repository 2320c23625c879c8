/**
 * WHOIS privacy in live mode against the DNSimple double (test/support/fakeDnsimple.ts, which
 * answers as dnsimple/dnsimple-developer's whois_privacy fixtures show): PATCH goes to the registrar
 * within the request and stores only what it agreed to; a registration asking for it ends with it on.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../support/testApp.js';
import { bearer, jsonHeaders } from '../support/actors.js';
import { readJson, type MessageErrorBody } from '../support/http.js';
import { FakeDnsimple, registrarEnv } from '../support/fakeDnsimple.js';
import { liveCustomers, type LiveCustomer, type LiveCustomers } from '../support/liveCustomers.js';
import { insertActiveDomain } from '../support/domains.js';
import { findDomainOfOrg } from '../../src/features/domains/domains.repository.js';
import { listAuditEventsForTarget } from '../../src/audit/auditEvents.js';
import { REGISTRAR_RETRY_AFTER_SECONDS } from '../../src/features/domains/domainSettings.js';
import { modeOf } from '../../src/db/modeScope.js';

let dnsimple: FakeDnsimple;
let app: TestApp;
let live: LiveCustomers;
beforeAll(async () => {
  dnsimple = await FakeDnsimple.start();
  app = await startTestApp({ worker: true, env: registrarEnv(dnsimple) });
  live = liveCustomers(app);
});
afterAll(async () => {
  await app?.close();
  await dnsimple?.close();
});

/** A live domain of ours that the DNSimple account holds, as after a registration. */
async function heldDomain(label: string, upstream: Parameters<FakeDnsimple['holdDomain']>[2] = {}) {
  const c = await live.customer(100);
  const name = `${label}-${Date.now()}.com`;
  await insertActiveDomain(app, { org: c.org, livemode: true }, { name });
  dnsimple.holdDomain(name, '2030-01-01T00:00:00Z', upstream);
  return { c, name, url: `/api/v1/orgs/${c.org.id}/domains/${name}` };
}

const patch = (c: LiveCustomer, url: string, body: unknown) =>
  app.fetch(url, { method: 'PATCH', headers: jsonHeaders(c.token), body: JSON.stringify(body) });
const shown = async (c: LiveCustomer, url: string) => readJson<{ whois_privacy: boolean; version: number }>(await app.fetch(url, { headers: bearer(c.token) }));

describe('WHOIS privacy in live mode (DNSimple)', () => {
  it('PATCH turns it on with PUT …/whois_privacy and off with DELETE, storing what DNSimple confirmed', async () => {
    const { c, name, url } = await heldDomain('veiled');
    const path = `/v2/${dnsimple.accountId}/registrar/domains/${name}/whois_privacy`;
    const on = await patch(c, url, { whois_privacy: true });
    expect(on.status).toBe(200);
    expect(await on.json()).toMatchObject({ whois_privacy: true, version: 2 });
    expect(dnsimple.domain(name)).toMatchObject({ whoisPrivacy: true, whoisPrivacyPurchased: true });
    expect(await shown(c, url)).toMatchObject({ whois_privacy: true });

    const off = await patch(c, url, { whois_privacy: false });
    expect(await off.json()).toMatchObject({ whois_privacy: false, version: 3 });
    expect(dnsimple.domain(name).whoisPrivacy).toBe(false);
    expect(dnsimple.requests.filter((r) => r.path === path).map((r) => r.method)).toEqual(['PUT', 'DELETE']);

    const domain = (await findDomainOfOrg(app.deps.db, modeOf(true), c.org.id, name))!;
    expect((await listAuditEventsForTarget(app.deps.db, 'domain', domain.id)).map((e) => e.data)).toEqual([
      { livemode: true, name, whois_privacy: true, previous: false, version: 2 },
      { livemode: true, name, whois_privacy: false, previous: true, version: 3 },
    ]);
  });

  it('a DNSimple outage is 503 with Retry-After and leaves the stored value and DNSimple unchanged', async () => {
    const { c, name, url } = await heldDomain('outage');
    dnsimple.fail({ method: 'PUT', path: new RegExp(`${name}/whois_privacy$`) }, { status: 503, body: { message: 'Service Unavailable' }, headers: { 'retry-after': '4' } });
    const down = await patch(c, url, { whois_privacy: true, auto_renew: true });
    expect(down.status).toBe(503);
    expect(down.headers.get('retry-after')).toBe('4');
    expect((await readJson<MessageErrorBody>(down)).code).toBe('UPSTREAM_UNAVAILABLE');
    // nginx's 502 page names no delay: the answer still says when to try again.
    dnsimple.fail({ method: 'PUT', path: new RegExp(`${name}/whois_privacy$`) }, { status: 502, body: '<html>502 Bad Gateway</html>' });
    const gateway = await patch(c, url, { whois_privacy: true });
    expect(gateway.status).toBe(503);
    expect(gateway.headers.get('retry-after')).toBe(String(REGISTRAR_RETRY_AFTER_SECONDS));
    expect(await shown(c, url)).toMatchObject({ whois_privacy: false, auto_renew: false, version: 1 });
    expect(dnsimple.domain(name).whoisPrivacy).toBe(false);
    const domain = (await findDomainOfOrg(app.deps.db, modeOf(true), c.org.id, name))!;
    expect(await listAuditEventsForTarget(app.deps.db, 'domain', domain.id)).toEqual([]);
  });

  it("DNSimple's refusal (a TLD without WHOIS privacy) is 422 REGISTRAR_REJECTED and changes nothing", async () => {
    const { c, url } = await heldDomain('noprivacy', { whoisPrivacyOffered: false });
    const refused = await patch(c, url, { whois_privacy: true });
    expect(refused.status).toBe(422);
    expect(await readJson<MessageErrorBody>(refused)).toMatchObject({ code: 'REGISTRAR_REJECTED', detail: expect.stringContaining('not available') });
    expect(await shown(c, url)).toMatchObject({ whois_privacy: false, version: 1 });
  });

  it('registering with whois_privacy: true turns it on at DNSimple once registered, and GET shows it on', async () => {
    const c = await live.customer(5_000);
    const name = `private-live-${Date.now()}.com`;
    const res = await live.post(c, `/api/v1/orgs/${c.org.id}/domains`, `reg-${name}`, { name, years: 1, registrant_contact_id: c.contactId, whois_privacy: true });
    expect(res.status).toBe(202);
    const done = await live.finish(c.token, res.headers.get('location')!);
    expect(done).toMatchObject({ status: 'succeeded' });
    expect(done.result).not.toHaveProperty('whois_privacy_applied');
    expect(dnsimple.domain(name)).toMatchObject({ held: 'registered', whoisPrivacy: true });
    expect(dnsimple.requestsTo('PUT', `/registrar/domains/${name}/whois_privacy`)).toHaveLength(1);
    expect(await shown(c, `/api/v1/orgs/${c.org.id}/domains/${name}`)).toMatchObject({ whois_privacy: true });
  });

  it('a registration whose TLD has no WHOIS privacy still succeeds, saying privacy was not applied', async () => {
    const c = await live.customer(5_000);
    const name = `public-live-${Date.now()}.com`;
    dnsimple.setDomain(name, { whoisPrivacyOffered: false });
    const res = await live.post(c, `/api/v1/orgs/${c.org.id}/domains`, `reg-${name}`, { name, years: 1, registrant_contact_id: c.contactId, whois_privacy: true });
    const done = await live.finish(c.token, res.headers.get('location')!);
    expect(done).toMatchObject({ status: 'succeeded', result: { whois_privacy_applied: false } });
    expect(await shown(c, `/api/v1/orgs/${c.org.id}/domains/${name}`)).toMatchObject({ whois_privacy: false });
  });
});
