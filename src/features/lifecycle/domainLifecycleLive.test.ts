import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../../../test/support/testApp.js';
import { startPowerDns, type PowerDns } from '../../../test/support/powerdns.js';
import { startSmtpSink, type SmtpSink } from '../../../test/support/smtpSink.js';
import { dnsCustomer, insertActiveDomain } from '../../../test/support/domains.js';
import { jsonHeaders } from '../../../test/support/actors.js';
import { findDomainOfOrg, findLatestDomainOfOrg, updateDomain } from '../domains/domains.repository.js';
import { LIFECYCLE_DURATIONS, watchDomain } from './watch.js';
import { modeOf } from '../../db/modeScope.js';

/**
 * A live domain's end, with the durations short (they are workflow inputs; live mode has no test
 * clocks): expired at its expiry, deleted after the grace period, and its zone removed from a real
 * PowerDNS on loopback.
 */
let pdns: PowerDns;
let smtp: SmtpSink;
let app: TestApp;
beforeAll(async () => {
  [pdns, smtp] = await Promise.all([startPowerDns(), startSmtpSink()]);
  app = await startTestApp({ worker: true, env: { DNS_PROVIDER_URL: pdns.apiUrl, DNS_PROVIDER_TOKEN: pdns.apiKey, SMTP_URL: smtp.url } });
});
afterAll(async () => {
  await app?.close();
  await Promise.all([pdns?.close(), smtp?.close()]);
});

const zoneStatus = async (name: string) =>
  (await fetch(`${pdns.apiUrl}/api/v1/servers/localhost/zones/${name}.`, { headers: { 'X-API-Key': pdns.apiKey } })).status;

describe('a live domain left to expire', () => {
  it('expires, then after the grace period is deleted: records gone, zone deleted at PowerDNS, owners told', async () => {
    const c = await dnsCustomer(app, 'live');
    const name = await insertActiveDomain(app, c);
    const created = await app.fetch(`/api/v1/orgs/${c.org.id}/domains/${name}/records`, {
      method: 'POST',
      headers: jsonHeaders(c.key),
      body: JSON.stringify({ type: 'A', name: 'www', content: '192.0.2.20' }),
    });
    expect(created.status).toBe(201);
    expect(await pdns.resolver().resolve4(`www.${name}`)).toEqual(['192.0.2.20']);
    expect(await zoneStatus(name)).toBe(200);

    const mode = modeOf(true);
    const expiry = new Date(Date.now() - 1_000);
    const domain = await updateDomain(app.deps.db, mode, (await findDomainOfOrg(app.deps.db, mode, c.org.id, name))!.id, { expires_at: expiry });
    await watchDomain({
      temporal: app.deps.temporal,
      config: app.deps.config,
      domain: domain!,
      reason: 'test',
      durations: { ...LIFECYCLE_DURATIONS, noticeLeadsMs: [], graceMs: 3_000 },
      watchFrom: new Date(expiry.getTime() - 1),
    });

    const status = async () => (await findLatestDomainOfOrg(app.deps.db, mode, c.org.id, name))?.status;
    await expect.poll(status, { timeout: 15_000, interval: 100 }).toBe('expired');
    await expect.poll(status, { timeout: 15_000, interval: 200 }).toBe('deleted');
    await expect.poll(() => zoneStatus(name), { timeout: 15_000, interval: 200 }).toBe(404);
    const { rows } = await app.deps.db.query('SELECT id FROM dns_records WHERE domain_id = $1', [domain!.id]);
    expect(rows).toEqual([]);
    await expect.poll(() => smtp.to(c.email).map((m) => m.subject), { timeout: 15_000 }).toEqual([`${name} has expired`, `${name} has been deleted`]);
  });
});
