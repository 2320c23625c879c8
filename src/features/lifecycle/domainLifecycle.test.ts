import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Worker } from '@temporalio/worker';
import { startTestApp, sharedWorkflowBundle, type TestApp } from '../../../test/support/testApp.js';
import { joinOrg, jsonHeaders, uniqueEmail } from '../../../test/support/actors.js';
import { customerFactory } from '../../../test/support/customers.js';
import { readJson, type MessageErrorBody } from '../../../test/support/http.js';
import { startSmtpSink, type SmtpSink } from '../../../test/support/smtpSink.js';
import { recordHistory } from '../../../test/support/histories.js';
import { findDomainOfOrg, findLatestDomainOfOrg } from '../domains/domains.repository.js';
import { lifecycleWorkflowId } from './watch.js';
import { lifecycleProgressQuery } from './domainLifecycle.contract.js';
import { COM_YEAR_PRICE as RENEW_PRICE, lifecycleActions, type LifecycleCustomer as Customer } from '../../../test/support/lifecycle.js';
import { modeOf } from '../../db/modeScope.js';

let app: TestApp;
let smtp: SmtpSink;
let f: ReturnType<typeof customerFactory>;
let lifecycle: ReturnType<typeof lifecycleActions>;

beforeAll(async () => {
  smtp = await startSmtpSink();
  app = await startTestApp({ worker: true, env: { SMTP_URL: smtp.url } });
  f = customerFactory(app);
  lifecycle = lifecycleActions(app, f);
});
afterAll(async () => {
  await app?.close();
  await smtp?.close();
});

const subjects = (email: string, about: string) =>
  smtp
    .to(email)
    .filter((m) => m.subject?.includes(about))
    .map((m) => m.subject!);

async function eventTypes(orgId: string): Promise<string[]> {
  const { rows } = await app.deps.db.query<{ type: string }>(`SELECT type FROM events WHERE org_id = $1 AND type LIKE 'domain.%' ORDER BY created_at, id`, [orgId]);
  return rows.map((r) => r.type);
}

const poll = { timeout: 20_000, interval: 200 };

/**
 * Waits until the domain's lifecycle has read the test clock at `moved.offset_days` and done all it
 * brought (or has ended): from then on nothing more happens until the clock moves again, so what
 * the test counts next is final.
 */
async function settled(c: Customer, name: string, moved: { offset_days: number }): Promise<void> {
  const domain = await findLatestDomainOfOrg(app.deps.db, modeOf(false), c.org.id, name);
  const handle = app.deps.temporal.client.workflow.getHandle(lifecycleWorkflowId(domain!.id));
  const done = async () => {
    if ((await handle.describe()).status.name !== 'RUNNING') return true;
    const progress = await handle.query(lifecycleProgressQuery);
    return progress.idle && progress.clockOffsetDays === moved.offset_days;
  };
  await expect.poll(done, poll).toBe(true);
}

describe('domain lifecycle with test clocks', () => {
  it('auto-renews once, 30 days before expiry, from the balance: one renewal operation, one capture', async () => {
    const c = await f.customer(5_000);
    const domain = await lifecycle.registered(c, { autoRenew: true, label: 'auto' });
    expect(await f.balance(c)).toMatchObject({ available: 5_000 - RENEW_PRICE });
    // Registered for a year: 340 days on, 25 days are left, past the auto-renewal point.
    await lifecycle.advance(c, domain.name, 340);
    await expect.poll(async () => (await lifecycle.domainOf(c, domain.name)).expires_at, poll).not.toBe(domain.expires_at);
    const renewed = await lifecycle.domainOf(c, domain.name);
    expect(renewed.status).toBe('active');
    expect(new Date(renewed.expires_at).getUTCFullYear()).toBe(new Date(domain.expires_at).getUTCFullYear() + 1);
    expect(await f.balance(c)).toMatchObject({ available: 5_000 - 2 * RENEW_PRICE, reserved: 0 });

    // Later days of the old term bring no second renewal.
    await settled(c, domain.name, await lifecycle.advance(c, domain.name, 10));
    expect(await f.balance(c)).toMatchObject({ available: 5_000 - 2 * RENEW_PRICE, reserved: 0 });
    const renewals = await lifecycle.renewOperations(c);
    expect(renewals).toHaveLength(1);
    expect(renewals[0]).toMatchObject({ status: 'succeeded', domain: domain.name });
    expect(await eventTypes(c.org.id)).toEqual(['domain.renewed']);
    expect(subjects(c.email, domain.name)).toEqual([]);
  });

  it('e-mails owners and admins 30, 7 and 1 days before expiry without auto-renew, once each', async () => {
    const c = await f.customer(5_000);
    const adminEmail = uniqueEmail('admin');
    await joinOrg(app, c.session, c.org.id, adminEmail, 'admin');
    const domain = await lifecycle.registered(c, { autoRenew: false, label: 'notice' });
    const expiring = (email: string) => subjects(email, `${domain.name} expires in`);

    await lifecycle.advance(c, domain.name, 335); // 30 days left, less the seconds since registration
    await expect.poll(() => expiring(c.email), poll).toHaveLength(1);
    await lifecycle.advance(c, domain.name, 1); // past the same point again
    await settled(c, domain.name, await lifecycle.advance(c, domain.name, 21)); // 8 days left: nothing due
    expect(expiring(c.email)).toEqual([`[test mode] ${domain.name} expires in 30 days`]);

    await lifecycle.advance(c, domain.name, 1); // 7 days left
    await expect.poll(() => expiring(c.email), poll).toHaveLength(2);
    await lifecycle.advance(c, domain.name, 5); // 2 days left
    await settled(c, domain.name, await lifecycle.advance(c, domain.name, 1)); // 1 day left
    const expected = [30, 7, 1].map((days) => `[test mode] ${domain.name} expires in ${days} day${days === 1 ? '' : 's'}`);
    expect(expiring(c.email)).toEqual(expected);
    expect(expiring(adminEmail)).toEqual(expected);
    const ids = smtp.to(c.email).filter((m) => m.subject?.includes('expires in')).map((m) => m.messageId);
    expect(new Set(ids).size).toBe(3);
    expect(await eventTypes(c.org.id)).toEqual(['domain.expiring', 'domain.expiring', 'domain.expiring']);
    expect((await lifecycle.domainOf(c, domain.name)).status).toBe('active');
    expect(await f.balance(c)).toMatchObject({ available: 5_000 - RENEW_PRICE, reserved: 0 });
  });

  it('with short funds, tells the owners each day it fails, then the domain expires', async () => {
    const c = await f.customer(RENEW_PRICE);
    const domain = await lifecycle.registered(c, { autoRenew: true, label: 'short' });
    expect(await f.balance(c)).toMatchObject({ available: 0 });
    const failures = () => subjects(c.email, `Auto-renewal of ${domain.name} failed`);

    await lifecycle.advance(c, domain.name, 335); // the first attempt falls due
    await expect.poll(failures, poll).toHaveLength(1);
    await lifecycle.advance(c, domain.name, 1);
    await expect.poll(failures, poll).toHaveLength(2);
    await lifecycle.advance(c, domain.name, 1);
    await expect.poll(failures, poll).toHaveLength(3);
    // The other 27 daily attempts, then expiry, as they would have happened in real time: 56 activities
    // one after another, each a round trip through Temporal, so a busy machine is given longer.
    await lifecycle.advance(c, domain.name, 30);
    await expect.poll(failures, { ...poll, timeout: 60_000 }).toHaveLength(30);
    await expect.poll(async () => (await lifecycle.domainOf(c, domain.name)).status, poll).toBe('expired');
    await expect.poll(() => subjects(c.email, `${domain.name} has expired`), poll).toHaveLength(1);
    expect(failures()).toHaveLength(30);
    expect(smtp.to(c.email).find((m) => m.subject?.includes('failed'))?.text).toContain('Insufficient funds');
    expect(await lifecycle.renewOperations(c)).toEqual([]);
    expect(await f.balance(c)).toMatchObject({ available: 0, reserved: 0 });
    const types = await eventTypes(c.org.id);
    expect(types.filter((t) => t === 'domain.auto_renew_failed')).toHaveLength(30);
    expect(types.at(-1)).toBe('domain.expired');
  }, 120_000);

  it('renews an expired domain during the grace period: active again, charged once, not deleted', async () => {
    const c = await f.customer(5_000);
    const domain = await lifecycle.registered(c, { autoRenew: false, label: 'grace' });
    await lifecycle.advance(c, domain.name, 366);
    await expect.poll(async () => (await lifecycle.domainOf(c, domain.name)).status, poll).toBe('expired');
    // DNS edits wait for renewal; renewal itself answers as for an active domain.
    const renew = await app.fetch(`/api/v1/orgs/${c.org.id}/domains/${domain.name}/renew`, {
      method: 'POST',
      headers: { ...jsonHeaders(c.key), 'idempotency-key': `grace-${domain.name}` },
      body: JSON.stringify({ years: 1 }),
    });
    expect(renew.status).toBe(200);
    const renewed = await readJson<{ expires_at: string; charged: { amount: number } }>(renew);
    expect(renewed.charged.amount).toBe(RENEW_PRICE);
    expect(new Date(renewed.expires_at).getUTCFullYear()).toBe(new Date(domain.expires_at).getUTCFullYear() + 1);
    expect(await lifecycle.domainOf(c, domain.name)).toMatchObject({ status: 'active', expires_at: renewed.expires_at });
    // Past the end of the old grace period: the new term goes on.
    await settled(c, domain.name, await lifecycle.advance(c, domain.name, 40));
    expect((await lifecycle.domainOf(c, domain.name)).status).toBe('active');
    expect(await f.balance(c)).toMatchObject({ available: 5_000 - 2 * RENEW_PRICE, reserved: 0 });
    expect(subjects(c.email, `${domain.name} has been deleted`)).toEqual([]);
  });

  it('deletes a domain left alone after the grace period: records gone, name free, registering it again works', async () => {
    const c = await f.customer(5_000);
    const domain = await lifecycle.registered(c, { autoRenew: false, label: 'lapse' });
    const record = await app.fetch(`/api/v1/orgs/${c.org.id}/domains/${domain.name}/records`, {
      method: 'POST',
      headers: { ...jsonHeaders(c.session), 'x-mode': 'test' },
      body: JSON.stringify({ type: 'A', name: 'www', content: '192.0.2.10' }),
    });
    expect(record.status).toBe(201);
    const held = await f.register(c, { name: domain.name, years: 1, registrant_contact_id: c.contactId }, `held-${domain.name}`);
    expect(held.status).toBe(409);
    expect((await readJson<MessageErrorBody>(held)).code).toBe('DOMAIN_STATE_CONFLICT');

    // Past expiry in one step, past the grace period in another.
    await lifecycle.advance(c, domain.name, 366);
    await expect.poll(async () => (await lifecycle.domainOf(c, domain.name)).status, poll).toBe('expired');
    const edit = await app.fetch(`/api/v1/orgs/${c.org.id}/domains/${domain.name}/records`, {
      method: 'POST',
      headers: { ...jsonHeaders(c.session), 'x-mode': 'test' },
      body: JSON.stringify({ type: 'A', name: 'mail', content: '192.0.2.11' }),
    });
    expect(edit.status).toBe(409);
    await lifecycle.advance(c, domain.name, 30);
    await expect.poll(async () => (await lifecycle.domainOf(c, domain.name)).status, poll).toBe('deleted');
    await expect.poll(() => subjects(c.email, `${domain.name} has been deleted`), poll).toHaveLength(1);

    const mode = modeOf(false);
    const gone = await findLatestDomainOfOrg(app.deps.db, mode, c.org.id, domain.name);
    const { rows } = await app.deps.db.query(`SELECT id FROM dns_records WHERE domain_id = $1`, [gone!.id]);
    expect(rows).toEqual([]);
    expect(await findDomainOfOrg(app.deps.db, mode, c.org.id, domain.name)).toBeUndefined();
    expect(subjects(c.email, domain.name).filter((s) => !s.includes('expires in'))).toEqual([
      `[test mode] ${domain.name} has expired`,
      `[test mode] ${domain.name} has been deleted`,
    ]);
    expect(await eventTypes(c.org.id)).toEqual(['domain.expiring', 'domain.expiring', 'domain.expiring', 'domain.expired', 'domain.deleted']);
    const renew = await app.fetch(`/api/v1/orgs/${c.org.id}/domains/${domain.name}/renew`, { method: 'POST', headers: jsonHeaders(c.key), body: '{}' });
    expect(renew.status).toBe(409);

    // The name is free: the organisation registers it anew (test names are held per organisation).
    const again = await f.register(c, { name: domain.name, years: 1, registrant_contact_id: c.contactId }, `again-${domain.name}`);
    expect(again.status).toBe(202);
    expect((await f.pollUntilFinished(c, again.headers.get('location')!)).status).toBe('succeeded');
    expect((await lifecycle.domainOf(c, domain.name)).status).toBe('active');

    // The lifecycle's history replays deterministically (and is kept for test/workflows/replay.test.ts).
    const workflowId = lifecycleWorkflowId(gone!.id);
    expect(await app.deps.temporal.client.workflow.getHandle(workflowId).result()).toEqual({ outcome: 'deleted' });
    const history = await recordHistory(app, workflowId, 'domain-lifecycle-deleted-local-store');
    await expect(Worker.runReplayHistory({ workflowBundle: sharedWorkflowBundle() }, history, workflowId)).resolves.toBeUndefined();
  });

  it('lets only one renewal of a term through when a renewal by hand meets the auto-renewal', async () => {
    const c = await f.customer(RENEW_PRICE);
    const domain = await lifecycle.registered(c, { autoRenew: true, label: 'race' });
    await f.balance(c);
    await lifecycle.advance(c, domain.name, 335);
    await expect.poll(() => subjects(c.email, `Auto-renewal of ${domain.name} failed`), poll).toHaveLength(1);
    const topUp = await app.fetch(`/api/v1/orgs/${c.org.id}/billing/top-ups`, { method: 'POST', headers: jsonHeaders(c.key), body: JSON.stringify({ amount: 3 * RENEW_PRICE }) });
    expect(topUp.status).toBe(201);
    // The next day's auto-renewal and a renewal by hand, at once.
    const [, manual] = await Promise.all([
      lifecycle.advance(c, domain.name, 1),
      app.fetch(`/api/v1/orgs/${c.org.id}/domains/${domain.name}/renew`, { method: 'POST', headers: jsonHeaders(c.key), body: '{}' }),
    ]);
    expect([200, 202, 409]).toContain(manual.status);
    await expect.poll(async () => (await lifecycle.domainOf(c, domain.name)).expires_at, poll).not.toBe(domain.expires_at);
    await settled(c, domain.name, await lifecycle.advance(c, domain.name, 2));
    const renewals = (await lifecycle.renewOperations(c)).filter((op) => op.status === 'succeeded');
    expect(renewals).toHaveLength(1);
    expect(new Date((await lifecycle.domainOf(c, domain.name)).expires_at).getUTCFullYear()).toBe(new Date(domain.expires_at).getUTCFullYear() + 1);
    expect(await f.balance(c)).toMatchObject({ available: 3 * RENEW_PRICE - RENEW_PRICE, reserved: 0 });
  });

  it('has no test clocks in live mode (404), and checks the number of days', async () => {
    const c = await f.customer(5_000);
    const domain = await lifecycle.registered(c, { autoRenew: false, label: 'clock' });
    const live = await app.fetch(`/api/v1/orgs/${c.org.id}/domains/${domain.name}/test-clock`, {
      method: 'POST',
      headers: jsonHeaders(c.session),
      body: JSON.stringify({ advance_days: 1 }),
    });
    expect(live.status).toBe(404);
    for (const days of [0, 401, 1.5]) {
      const res = await app.fetch(`/api/v1/orgs/${c.org.id}/domains/${domain.name}/test-clock`, {
        method: 'POST',
        headers: jsonHeaders(c.key),
        body: JSON.stringify({ advance_days: days }),
      });
      expect(res.status).toBe(422);
    }
    const moved = await lifecycle.advance(c, domain.name, 3);
    expect(moved).toMatchObject({ offset_days: 3, status: 'active' });
    expect(Date.parse(moved.now) - Date.now()).toBeGreaterThan(3 * 86_400_000 - 60_000);
  });
});
