import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../../../test/support/testApp.js';
import { readJson, type FieldErrorBody, type MessageErrorBody } from '../../../test/support/http.js';
import { FakeDnsimple, registrarEnv } from '../../../test/support/fakeDnsimple.js';
import { liveCustomers, type LiveCustomers } from '../../../test/support/liveCustomers.js';

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

describe('max_price on a live premium registration', () => {
  it('needs a max_price (422), refuses one below the premium price (409), registers at one that covers it', async () => {
    const c = await live.customer(50_000);
    const name = `gem-${Date.now()}.com`;
    // The registry's premium price, 250.00 USD: 25,000 minor units for one year.
    dnsimple.setDomain(name, { premium: true, registrationPrice: 250 });
    const register = (body: Record<string, unknown>, key: string) =>
      live.post(c, `/api/v1/orgs/${c.org.id}/domains`, key, { name, years: 1, registrant_contact_id: c.contactId, ...body });

    const unagreed = await register({}, 'no-max');
    expect(unagreed.status).toBe(422);
    const field = (await readJson<FieldErrorBody>(unagreed)).detail[0]!;
    expect(field).toMatchObject({ loc: ['body', 'max_price'], type: 'max_price_required' });
    expect(field.msg).toContain('25000');

    const tooLow = await register({ max_price: 24_999 }, 'low-max');
    expect(tooLow.status).toBe(409);
    expect((await readJson<MessageErrorBody>(tooLow)).code).toBe('PRICE_EXCEEDS_MAX');
    expect(await live.balanceOf(c)).toMatchObject({ available: 50_000, reserved: 0 });
    expect(dnsimple.requestsTo('POST', `/registrar/domains/${name}/registrations`)).toHaveLength(0);

    const agreed = await register({ max_price: 25_000 }, 'max');
    expect(agreed.status).toBe(202);
    expect((await live.finish(c.token, agreed.headers.get('location')!)).status).toBe('succeeded');
    expect(await live.balanceOf(c)).toMatchObject({ available: 25_000, reserved: 0 });
  });

  it('registers a name at its list price without max_price', async () => {
    const c = await live.customer(5_000);
    const res = await live.post(c, `/api/v1/orgs/${c.org.id}/domains`, 'plain', { name: `plain-${Date.now()}.com`, years: 1, registrant_contact_id: c.contactId });
    expect(res.status).toBe(202);
  });
});
