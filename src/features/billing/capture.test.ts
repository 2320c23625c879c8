import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { createPool, type Db } from '../../db/pool.js';
import { createLogger } from '../../logger.js';
import { newId } from '../../ids.js';
import { insertOrganization } from '../../auth/organizations.js';
import { findBalance } from './balances.repository.js';
import { listLedgerEntriesOfOperation } from './transactions.repository.js';
import { ApiError } from '../../errors.js';
import { capture, release, reserve, topUp } from './ledger.js';
import { modeOf } from '../../db/modeScope.js';

const LIVE = modeOf(true);
const ONE_OF_THREE = { done: 1, of: 3 };

let db: Db;
beforeAll(() => {
  db = createPool(inject('databaseUrl'), createLogger({ logLevel: 'silent' }));
});
afterAll(async () => db?.end());

/** An organisation with 1000 available and 900 reserved for a three-year registration. */
async function reservedForThreeYears(): Promise<{ orgId: string; operationId: string }> {
  const orgId = (await insertOrganization(db, { id: newId('org'), name: 'Capture' })).id;
  await topUp({ db, orgId, livemode: true, amount: 1000, actor: { actorUserId: null, actorKeyId: null }, requestId: null });
  const operationId = newId('op');
  await reserve({ db, orgId, livemode: true, operationId, amount: 900, description: 'Registration of example.com for 3 years' });
  return { orgId, operationId };
}

const balanceOf = async (orgId: string) => {
  const { available, reserved } = await findBalance(db, LIVE, orgId);
  return { available, reserved };
};

const ledgerOf = async (operationId: string) =>
  (await listLedgerEntriesOfOperation(db, LIVE, operationId)).map((e) => [e.type, e.amount, e.availableAfter, e.reservedAfter, e.description]);

describe('capturing a share of a reservation', () => {
  it('spends the share, releases the rest, with one ledger entry each; again is a no-op', async () => {
    const { orgId, operationId } = await reservedForThreeYears();
    expect(await capture({ db, operationId, share: ONE_OF_THREE })).toMatchObject({ state: 'captured', amount: 900, captured: 300 });
    expect(await capture({ db, operationId, share: ONE_OF_THREE })).toMatchObject({ state: 'captured', amount: 900, captured: 300 });
    expect(await balanceOf(orgId)).toEqual({ available: 700, reserved: 0 });
    expect(await ledgerOf(operationId)).toEqual([
      ['reservation', 900, 100, 900, 'Registration of example.com for 3 years'],
      ['capture', 300, 100, 600, 'Registration of example.com for 3 years (part done)'],
      ['release', 600, 700, 0, 'Registration of example.com for 3 years (part not done)'],
    ]);
  });

  it('a share of the whole is a full capture: one entry, the description as reserved', async () => {
    const { orgId, operationId } = await reservedForThreeYears();
    expect(await capture({ db, operationId, share: { done: 3, of: 3 } })).toMatchObject({ state: 'captured', captured: 900 });
    expect(await balanceOf(orgId)).toEqual({ available: 100, reserved: 0 });
    expect(await ledgerOf(operationId)).toEqual([
      ['reservation', 900, 100, 900, 'Registration of example.com for 3 years'],
      ['capture', 900, 100, 0, 'Registration of example.com for 3 years'],
    ]);
  });

  it('refuses after a release (409), and a share that is no part of the whole (RangeError, nothing moved)', async () => {
    const released = await reservedForThreeYears();
    await release({ db, operationId: released.operationId });
    const err = await capture({ db, operationId: released.operationId, share: ONE_OF_THREE }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ApiError);
    expect(err).toMatchObject({ status: 409, code: 'RESERVATION_STATE_CONFLICT' });

    const { orgId, operationId } = await reservedForThreeYears();
    for (const share of [{ done: 0, of: 3 }, { done: 4, of: 3 }, { done: 1.5, of: 3 }, { done: -1, of: 3 }]) {
      await expect(capture({ db, operationId, share })).rejects.toThrow(RangeError);
    }
    expect(await balanceOf(orgId)).toEqual({ available: 100, reserved: 900 });
  });
});

describe('a capture attempted more than once', () => {
  it('captures once whatever each attempt asks: the first one decides, the others answer what it spent', async () => {
    const partFirst = await reservedForThreeYears();
    await capture({ db, operationId: partFirst.operationId, share: ONE_OF_THREE });
    expect(await capture({ db, operationId: partFirst.operationId })).toMatchObject({ state: 'captured', captured: 300 });
    expect(await balanceOf(partFirst.orgId)).toEqual({ available: 700, reserved: 0 });
    expect((await ledgerOf(partFirst.operationId)).map(([type, amount]) => [type, amount])).toEqual([['reservation', 900], ['capture', 300], ['release', 600]]);

    const wholeFirst = await reservedForThreeYears();
    await capture({ db, operationId: wholeFirst.operationId });
    expect(await capture({ db, operationId: wholeFirst.operationId, share: ONE_OF_THREE })).toMatchObject({ state: 'captured', captured: 900 });
    expect(await balanceOf(wholeFirst.orgId)).toEqual({ available: 100, reserved: 0 });
    expect((await ledgerOf(wholeFirst.operationId)).map(([type, amount]) => [type, amount])).toEqual([['reservation', 900], ['capture', 900]]);
  });

  it('concurrently, with and without a share, still spends once and answers every attempt alike', async () => {
    const { orgId, operationId } = await reservedForThreeYears();
    const attempts = await Promise.all(Array.from({ length: 6 }, (_, i) => capture({ db, operationId, share: i % 2 ? ONE_OF_THREE : undefined })));
    const spent = attempts[0]!.captured;
    expect([300, 900]).toContain(spent);
    for (const attempt of attempts) expect(attempt).toMatchObject({ state: 'captured', captured: spent });
    expect(await balanceOf(orgId)).toEqual({ available: 1000 - spent, reserved: 0 });
    const types = (await ledgerOf(operationId)).map(([type]) => type);
    expect(types).toEqual(spent === 900 ? ['reservation', 'capture'] : ['reservation', 'capture', 'release']);
  });
});

describe("the month's spending under a limit", () => {
  it('counts what a capture spent, not the share it released', async () => {
    const { orgId, operationId } = await reservedForThreeYears();
    await topUp({ db, orgId, livemode: true, amount: 1000, actor: { actorUserId: null, actorKeyId: null }, requestId: null });
    await db.query('UPDATE billing_balances SET monthly_spend_limit = 1000 WHERE org_id = $1 AND livemode', [orgId]);
    await capture({ db, operationId, share: ONE_OF_THREE });
    const reserveMore = (amount: number) => reserve({ db, orgId, livemode: true, operationId: newId('op'), amount, description: 'Renewal' });
    await expect(reserveMore(701)).rejects.toMatchObject({ status: 402, code: 'SPEND_LIMIT_REACHED', detail: expect.stringContaining(': 300 spent or reserved this month, 701 more asked') });
    await reserveMore(700);
    expect(await balanceOf(orgId)).toEqual({ available: 1000, reserved: 700 });
  });
});
