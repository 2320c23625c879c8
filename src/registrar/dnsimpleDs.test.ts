import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FakeDnsimple } from '../../test/support/fakeDnsimple.js';
import { DnsimpleRegistrar } from './dnsimple.js';
import { RegistrarRejectedError } from './errors.js';

/** DS records through DNSimple's `/domains/{domain}/ds_records` (fixtures/v2/api/*DelegationSigner*), against the double. */
let fake: FakeDnsimple;
let registrar: DnsimpleRegistrar;
beforeAll(async () => {
  fake = await FakeDnsimple.start();
  registrar = new DnsimpleRegistrar({ baseUrl: fake.url, accountId: fake.accountId, token: fake.token, timeoutMs: 2_000 }, { currency: 'USD', tlds: {} });
});
afterAll(async () => fake?.close());

const ds = { keyTag: 2371, algorithm: 13, digestType: 2, digest: '684a1f049d7d082b7f98691657da5a65764913df7f065f6f8c36edf62d66ca03' };

describe('DNSimple DS records', () => {
  it('adds a DS with every number sent as a string, lists it back, and deletes it (twice is fine)', async () => {
    fake.holdDomain('signed.com');
    const added = await registrar.addDsRecord('Signed.com.', ds);
    expect(added).toEqual({ ...ds, id: expect.stringMatching(/^\d+$/) });
    expect(fake.requestsTo('POST', '/v2/1010/domains/signed.com/ds_records')[0]!.body).toEqual({ algorithm: '13', digest: ds.digest, digest_type: '2', keytag: '2371' });
    expect(await registrar.listDsRecords('signed.com')).toEqual([added]);
    await registrar.deleteDsRecord('signed.com', added.id);
    await registrar.deleteDsRecord('signed.com', added.id);
    expect(await registrar.listDsRecords('signed.com')).toEqual([]);
  });

  it('reads every page of a long list', async () => {
    fake.holdDomain('many.com');
    for (let i = 0; i < 103; i++) await registrar.addDsRecord('many.com', { ...ds, keyTag: i });
    const held = await registrar.listDsRecords('many.com');
    expect(held.map((d) => d.keyTag)).toEqual(Array.from({ length: 103 }, (_, i) => i));
    expect(fake.requestsTo('GET', '/v2/1010/domains/many.com/ds_records').map((r) => r.query)).toEqual(['page=1&per_page=100', 'page=2&per_page=100']);
  });

  it('a refusal (validation-error.http) is permanent and names the field', async () => {
    fake.holdDomain('refused.com');
    const err = await registrar.addDsRecord('refused.com', { ...ds, digest: '' }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(RegistrarRejectedError);
    expect((err as Error).message).toContain("digest: can't be blank");
  });
});
