import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FakeDnsimple } from '../../test/support/fakeDnsimple.js';
import { DnsimpleRegistrar } from './dnsimple.js';
import { RegistrarUnavailableError } from './errors.js';

// The body of dnsimple/dnsimple-developer fixtures/v2/api/listDomains/success.http.
const LIST_DOMAINS_FIXTURE = {"data":[{"id":181984,"account_id":1385,"registrant_id":2715,"name":"example-alpha.com","unicode_name":"example-alpha.com","state":"registered","auto_renew":false,"private_whois":false,"expires_on":"2021-06-05","expires_at":"2021-06-05T02:15:00Z","created_at":"2020-06-04T19:15:14Z","updated_at":"2020-06-04T19:15:21Z"},{"id":181985,"account_id":1385,"registrant_id":null,"name":"example-beta.com","unicode_name":"example-beta.com","state":"hosted","auto_renew":false,"private_whois":false,"expires_on":null,"expires_at":null,"created_at":"2020-06-04T19:47:05Z","updated_at":"2020-06-04T19:47:05Z"}],"pagination":{"current_page":1,"per_page":30,"total_entries":2,"total_pages":1}};

let fake: FakeDnsimple;
let registrar: DnsimpleRegistrar;
beforeAll(async () => {
  fake = await FakeDnsimple.start();
  registrar = new DnsimpleRegistrar({ baseUrl: fake.url, accountId: fake.accountId, token: fake.token, timeoutMs: 2_000 }, { currency: 'USD', tlds: {} });
});
afterAll(async () => fake.close());

describe('the DNSimple account domain list', () => {
  it('reads the recorded fixture: states, auto-renew, expiry and pagination', async () => {
    fake.fail({ method: 'GET', path: '/v2/1010/domains' }, { status: 200, body: LIST_DOMAINS_FIXTURE });
    expect(await registrar.listDomains({ page: 1, perPage: 30 })).toEqual({
      domains: [
        { name: 'example-alpha.com', state: 'registered', autoRenew: false, expiresAt: '2021-06-05T02:15:00Z' },
        { name: 'example-beta.com', state: 'hosted', autoRenew: false, expiresAt: null },
      ],
      page: 1,
      totalPages: 1,
    });
  });

  it('asks for a page with per_page capped at DNSimple\'s maximum of 100', async () => {
    for (let i = 0; i < 3; i += 1) fake.setDomain(`page-${i}.com`, { held: 'registered', expiresAt: '2030-01-01T00:00:00Z' });
    const second = await registrar.listDomains({ page: 2, perPage: 2 });
    expect(second.page).toBe(2);
    expect(second.totalPages).toBe(2);
    expect(second.domains.map((d) => d.name)).toEqual(['page-2.com']);
    await registrar.listDomains({ page: 1, perPage: 500 });
    expect(fake.requestsTo('GET', '/v2/1010/domains').map((r) => r.query).slice(-2)).toEqual(['page=2&per_page=2', 'page=1&per_page=100']);
  });

  it('treats an answer without pagination as a protocol error, not an empty account', async () => {
    fake.fail({ method: 'GET', path: '/v2/1010/domains' }, { status: 200, body: { data: [] } });
    const err = await registrar.listDomains({ page: 1, perPage: 30 }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(RegistrarUnavailableError);
    expect(err).toMatchObject({ transient: false });
  });
});
