/**
 * A zone's record limit (docs/api-guide.md, DNS): 10,000 records on the free plan. Zones are filled
 * to near the limit through the repository (cheap), then the API is asked to add past it by every
 * path that adds records: one create, a batch, a zone import (merge and replace), httpreq. Two
 * batches at once that would together pass it: exactly one is applied.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../../../test/support/testApp.js';
import { bearer, jsonHeaders, uniqueEmail } from '../../../test/support/actors.js';
import { DNS_SCOPES, insertActiveDomain } from '../../../test/support/domains.js';
import { insertKey, insertOrg, insertUser } from '../../../test/support/factories.js';
import { readJson, type MessageErrorBody } from '../../../test/support/http.js';
import { countDnsRecords, insertDnsRecords } from './dnsRecords.repository.js';
import { zoneRecordLimit, ZONE_RECORDS_FREE } from './zoneRecordLimit.js';
import { newId } from '../../ids.js';
import { modeOf } from '../../db/modeScope.js';

const TEST_MODE = modeOf(false);
let app: TestApp;
let org: { id: string };
let key: string;

beforeAll(async () => {
  app = await startTestApp();
  const user = await insertUser(app.deps, uniqueEmail('quota'));
  org = await insertOrg(app.deps, { owner: user, plan: 'free' });
  key = (await insertKey(app.deps, { user, scopes: DNS_SCOPES, mode: 'test' })).key;
});
afterAll(async () => {
  await app?.close();
});

interface Zone {
  name: string;
  id: string;
  base: string;
  count(): Promise<number>;
}

/** A test-mode domain of the free organisation holding `records` A records, written straight to the table. */
async function zoneHolding(records: number): Promise<Zone> {
  const name = await insertActiveDomain(app, { org, livemode: false });
  const { rows } = await app.deps.db.query<{ id: string }>('SELECT id FROM domains WHERE name = $1 AND org_id = $2', [name, org.id]);
  const id = rows[0]!.id;
  await insertDnsRecords(app.deps.db, TEST_MODE, {
    domainId: id,
    orgId: org.id,
    rows: Array.from({ length: records }, (_, i) => ({
      id: newId('rec'),
      fields: { type: 'A' as const, name: `h${i}`, content: `192.0.2.${i % 250}`, ttl: 300, priority: null },
    })),
  });
  return { name, id, base: `/api/v1/orgs/${org.id}/domains/${name}`, count: () => countDnsRecords(app.deps.db, TEST_MODE, id) };
}

const create = (zone: Zone, name: string) =>
  app.fetch(`${zone.base}/records`, { method: 'POST', headers: jsonHeaders(key), body: JSON.stringify({ type: 'A', name, content: '192.0.2.1' }) });
const batch = (zone: Zone, operations: unknown[]) =>
  app.fetch(`${zone.base}/records/batch`, { method: 'POST', headers: jsonHeaders(key), body: JSON.stringify({ operations }) });
const creates = (prefix: string, n: number) => Array.from({ length: n }, (_, i) => ({ op: 'create', record: { type: 'A', name: `${prefix}${i}`, content: '192.0.2.1' } }));
const importZone = (zone: Zone, text: string, query: string, dryRun = false) =>
  app.fetch(`${zone.base}/zone?${query}`, { method: 'POST', headers: { ...bearer(key), 'content-type': 'text/dns', ...(dryRun ? { 'dry-run': 'true' } : {}) }, body: text });

async function expectLimit(res: Response): Promise<void> {
  const body = await readJson<MessageErrorBody>(res);
  expect({ status: res.status, code: body.code }).toEqual({ status: 409, code: 'ZONE_RECORD_LIMIT' });
  expect(body.detail).toContain(`at most ${ZONE_RECORDS_FREE} records`);
}

describe('the record limit of a zone', () => {
  it('scales with the plan as the rate limits do', () => {
    expect([zoneRecordLimit('free'), zoneRecordLimit('pro'), zoneRecordLimit('enterprise')]).toEqual([10_000, 50_000, 200_000]);
  });

  it('lets a single create reach the limit, and refuses the next', async () => {
    const zone = await zoneHolding(ZONE_RECORDS_FREE - 1);
    expect((await create(zone, 'last')).status).toBe(201);
    await expectLimit(await create(zone, 'past'));
    expect(await zone.count()).toBe(ZONE_RECORDS_FREE);
  });

  it('refuses a batch that would pass it, whole; one adding nothing passes even at the limit', async () => {
    const zone = await zoneHolding(ZONE_RECORDS_FREE - 1);
    await expectLimit(await batch(zone, creates('b', 2)));
    expect(await zone.count()).toBe(ZONE_RECORDS_FREE - 1);
    expect((await batch(zone, creates('b', 1))).status).toBe(200);
    const [existing] = (await readJson<{ data: { id: string }[] }>(await app.fetch(`${zone.base}/records?limit=1`, { headers: bearer(key) }))).data;
    expect((await batch(zone, [{ op: 'delete', id: existing!.id }, ...creates('swap', 1)])).status).toBe(200);
    expect(await zone.count()).toBe(ZONE_RECORDS_FREE);
  });

  it('counts what an import leaves: a merge adding past it is refused, a replace leaving fewer is not, a file of more is refused once read', async () => {
    const zone = await zoneHolding(ZONE_RECORDS_FREE);
    await expectLimit(await importZone(zone, '$TTL 300\nnew A 192.0.2.9\n', 'mode=merge'));
    await expectLimit(await importZone(zone, '$TTL 300\nnew A 192.0.2.9\n', 'mode=merge', true));
    // The file's one record replaces the zone's ten thousand (a dry run: every check, nothing written).
    expect((await importZone(zone, '$TTL 300\nnew A 192.0.2.9\n', 'mode=replace', true)).status).toBe(200);
    const tooMany = `$TTL 300\n${Array.from({ length: ZONE_RECORDS_FREE + 1 }, (_, i) => `f${i} A 192.0.2.${i % 250}`).join('\n')}\n`;
    await expectLimit(await importZone(zone, tooMany, 'mode=replace'));
    expect(await zone.count()).toBe(ZONE_RECORDS_FREE);
  });

  it('refuses an httpreq present past it', async () => {
    const zone = await zoneHolding(ZONE_RECORDS_FREE);
    const res = await app.fetch(`/api/v1/orgs/${org.id}/acme/httpreq/present`, {
      method: 'POST',
      headers: jsonHeaders(key),
      body: JSON.stringify({ fqdn: `_acme-challenge.${zone.name}.`, value: 'x'.repeat(43) }),
    });
    await expectLimit(res);
  });

  it('lets exactly one of two concurrent batches through when together they would pass it', { timeout: 60_000 }, async () => {
    for (let round = 0; round < 3; round += 1) {
      const zone = await zoneHolding(ZONE_RECORDS_FREE - 5);
      // Different names, so the name locks alone would let both run at once.
      const answers = await Promise.all([batch(zone, creates('left', 5)), batch(zone, creates('right', 5))]);
      expect(answers.map((a) => a.status).sort()).toEqual([200, 409]);
      await expectLimit(answers.find((a) => a.status === 409)!);
      expect(await zone.count()).toBe(ZONE_RECORDS_FREE);
    }
  });
});
